package ppg

import (
	"errors"
	"math"
	"sort"
	"testing"
)

type query struct {
	name     string
	items    []Item // ranked by utility, group 0 ahead of equally useful group 1 items
	sessions int
}

var queries = []query{
	{"jobs", []Item{{101, 4, 0}, {102, 3, 0}, {103, 3, 1}, {104, 2, 0}, {105, 2, 1}, {106, 1, 0}, {107, 1, 1}, {108, 0, 0}}, 4},
	{"news", []Item{{7, 1, 0}, {3, 1, 0}, {9, 1, 0}, {1, 1, 1}, {4, 1, 1}, {2, 0, 0}, {8, 0, 1}}, 3},
}

func (q query) input() []uint64 {
	var r []uint64
	for s := 0; s < q.sessions; s++ {
		for _, it := range q.items {
			r = append(r, it.ID)
		}
	}
	return r
}

// checkPermutation fails t unless every session of ranking holds each id of q once.
func checkPermutation(t *testing.T, q query, ranking []uint64) {
	t.Helper()
	n := len(q.items)
	if len(ranking) != n*q.sessions {
		t.Fatalf("ranking has %d ids, want %d", len(ranking), n*q.sessions)
	}
	want := make([]uint64, 0, n)
	for _, it := range q.items {
		want = append(want, it.ID)
	}
	sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
	for s := 0; s < q.sessions; s++ {
		got := append([]uint64(nil), ranking[s*n:(s+1)*n]...)
		sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
		for k := range got {
			if got[k] != want[k] {
				t.Fatalf("session %d is not a permutation of the query: %v", s, ranking[s*n:(s+1)*n])
			}
		}
	}
}

// keptOrder says whether a comes before b in every session.
func keptOrder(ranking []uint64, n int, a, b uint64) bool {
	for s := 0; s*n < len(ranking); s++ {
		pa, pb := -1, -1
		for k, id := range ranking[s*n : (s+1)*n] {
			if id == a {
				pa = k
			}
			if id == b {
				pb = k
			}
		}
		if pa < 0 || pb < 0 || pa > pb {
			return false
		}
	}
	return true
}

// exposureGap is a caller's own fairness cost: the gap between the groups' exposure per
// unit of utility, exposure 1/log2(rank+2) averaged over the sessions.
func exposureGap(q query) func([]uint64, int) float64 {
	group := map[uint64]uint32{}
	var merit [2]float64
	for _, it := range q.items {
		group[it.ID] = it.Group
		merit[it.Group] += it.Utility
	}
	n := len(q.items)
	return func(ranking []uint64, sessions int) float64 {
		var exposure [2]float64
		for k, id := range ranking {
			exposure[group[id]] += 1 / math.Log2(float64(k%n)+2)
		}
		return math.Abs(exposure[0]/merit[0]-exposure[1]/merit[1]) / float64(sessions)
	}
}

func newEngine(t *testing.T, q query, batch int, seed uint64) *Engine {
	t.Helper()
	en, err := NewEngine(MethodPPG, len(q.items), q.sessions, batch, seed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { en.Close() })
	if err := en.SetQuery(q.items, q.sessions); err != nil {
		t.Fatal(err)
	}
	return en
}

func TestRerankBuiltinEEL(t *testing.T) {
	for i, q := range queries {
		t.Run(q.name, func(t *testing.T) {
			en := newEngine(t, q, 16, 2022+uint64(i))
			a, b := q.items[0].ID, q.items[1].ID
			if err := en.Forbid(a, b); err != nil {
				t.Fatal(err)
			}
			cfg := DefaultTrainConfig()
			cfg.ScoreInput = true
			eel := DefaultObjective(MetricEEL)
			rep, err := en.TrainBuiltin(cfg, eel)
			if err != nil {
				t.Fatal(err)
			}
			best, cost, err := en.Best()
			if err != nil {
				t.Fatal(err)
			}
			checkPermutation(t, q, best)
			before, err := en.Evaluate(eel, q.input())
			if err != nil {
				t.Fatal(err)
			}
			after, err := en.Evaluate(eel, best)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("EEL %.3g -> %.3g (%d samples)", before, after, rep.Samples)
			if !(after < before) {
				t.Errorf("EEL did not go down: %g -> %g", before, after)
			}
			if math.Abs(after-cost) > 1e-9*math.Max(1, after) || math.Abs(rep.BestCost-cost) > 1e-12 {
				t.Errorf("Best() cost %g, Evaluate %g, report %g", cost, after, rep.BestCost)
			}
			if !keptOrder(best, len(q.items), a, b) {
				t.Errorf("forbidden pair %d, %d inverted: %v", a, b, best)
			}
		})
	}
}

func TestRerankGoObjective(t *testing.T) {
	for i, q := range queries {
		t.Run(q.name, func(t *testing.T) {
			en := newEngine(t, q, 16, 7+uint64(i))
			if err := en.KeepOrderWithinGroups(); err != nil {
				t.Fatal(err)
			}
			gap := exposureGap(q)
			calls := 0
			cfg := DefaultTrainConfig()
			cfg.ScoreInput = true
			cfg.Baseline = true
			rep, err := en.Train(cfg, func(r []uint64, sessions int) float64 {
				calls++
				return gap(r, sessions)
			})
			if err != nil {
				t.Fatal(err)
			}
			best, cost, err := en.Best()
			if err != nil {
				t.Fatal(err)
			}
			checkPermutation(t, q, best)
			before := gap(q.input(), q.sessions)
			t.Logf("gap %.3g -> %.3g (%d samples, %d calls)", before, cost, rep.Samples, calls)
			if calls < int(rep.Samples) {
				t.Errorf("objective called %d times for %d samples", calls, rep.Samples)
			}
			if !(cost < before) || cost != gap(best, q.sessions) {
				t.Errorf("gap %g -> %g (recomputed %g)", before, cost, gap(best, q.sessions))
			}
			for x := range q.items {
				for y := x + 1; y < len(q.items); y++ {
					if q.items[x].Group == q.items[y].Group && !keptOrder(best, len(q.items), q.items[x].ID, q.items[y].ID) {
						t.Errorf("group order of %d before %d lost", q.items[x].ID, q.items[y].ID)
					}
				}
			}
		})
	}
}

func TestSampleUpdateLoop(t *testing.T) {
	q := queries[0]
	const batch = 8
	en := newEngine(t, q, batch, 99)
	a, b := q.items[2].ID, q.items[len(q.items)-1].ID
	if err := en.Forbid(a, b); err != nil {
		t.Fatal(err)
	}
	dtr := DefaultObjective(MetricDTR)
	cfg := DefaultTrainConfig()
	n, err := en.RankingLen()
	if err != nil {
		t.Fatal(err)
	}
	costs := make([]float64, batch)
	for step := 0; step < 40; step++ {
		rankings, err := en.Sample(batch)
		if err != nil {
			t.Fatal(err)
		}
		for k := range costs {
			v, err := en.Evaluate(dtr, rankings[k*n:(k+1)*n])
			if err != nil {
				t.Fatal(err)
			}
			costs[k] = math.Abs(v)
		}
		if err := en.Update(rankings, costs, cfg); err != nil {
			t.Fatal(err)
		}
	}
	best, cost, err := en.Best()
	if err != nil {
		t.Fatal(err)
	}
	checkPermutation(t, q, best)
	before, _ := en.Evaluate(dtr, q.input())
	t.Logf("|DTR| %.3g -> %.3g", math.Abs(before), cost)
	if !(cost < math.Abs(before)) {
		t.Errorf("|DTR| did not go down: %g -> %g", math.Abs(before), cost)
	}
	if !keptOrder(best, len(q.items), a, b) {
		t.Errorf("forbidden pair inverted: %v", best)
	}
	// A second Update without a new Sample has no pending batch.
	err = en.Update(best, costs[:1], cfg)
	if !errors.Is(err, &Error{Status: StatusNoPendingBatch}) {
		t.Errorf("Update without a batch: %v", err)
	}
}

func TestErrors(t *testing.T) {
	q := queries[0]
	en := newEngine(t, q, 16, 1)

	err := en.Forbid(q.items[0].ID, 424242)
	var pe *Error
	if !errors.As(err, &pe) || pe.Status != StatusUnknownItem || pe.Op != "ppg_engine_forbid" || pe.Msg == "" {
		t.Errorf("unknown id: got %v", err)
	}
	if err := en.Forbid(q.items[0].ID, q.items[0].ID); !errors.Is(err, &Error{Status: StatusInvalidArgument}) {
		t.Errorf("same id twice: got %v", err)
	}
	dup := append([]Item(nil), q.items...)
	dup[3].ID = dup[0].ID
	if err := en.SetQuery(dup, q.sessions); !errors.Is(err, &Error{Status: StatusDuplicateItem}) {
		t.Errorf("duplicate id: got %v", err)
	}
	if _, err := en.Evaluate(DefaultObjective(MetricEEL), []uint64{1, 2, 3}); !errors.Is(err, &Error{Status: StatusInvalidArgument}) {
		t.Errorf("short ranking: got %v", err)
	}
	// The failed SetQuery kept the previous query, and nothing was scored yet.
	if _, _, err := en.Best(); !errors.Is(err, &Error{Status: StatusNoResult}) {
		t.Errorf("Best before training: got %v", err)
	}
	if _, err := en.Train(DefaultTrainConfig(), func([]uint64, int) float64 { return math.Inf(1) }); !errors.Is(err, &Error{Status: StatusNotFinite}) {
		t.Errorf("infinite cost: got %v", err)
	}
	if _, err := NewEngine(MethodPPG, 0, 1, 1, 0); !errors.Is(err, &Error{Status: StatusInvalidArgument}) {
		t.Errorf("zero items: got %v", err)
	}

	en.Close()
	en.Close()
	if err := en.KeepOrderWithinGroups(); !errors.Is(err, &Error{Status: StatusNullParameter}) {
		t.Errorf("closed engine: got %v", err)
	}
	if err := en.HoldOrderWithinGroups(); !errors.Is(err, &Error{Status: StatusNullParameter}) {
		t.Errorf("closed engine, hold: got %v", err)
	}
}

func TestObjectivePanicRollsBack(t *testing.T) {
	q := queries[1]
	en := newEngine(t, q, 16, 5)
	calls := 0
	func() {
		defer func() {
			if r := recover(); r != "objective gave up" {
				t.Errorf("recovered %v, want the objective's panic value", r)
			}
		}()
		en.Train(DefaultTrainConfig(), func([]uint64, int) float64 {
			calls++
			if calls == 5 {
				panic("objective gave up")
			}
			return 1
		})
		t.Error("Train returned after the objective panicked")
	}()
	if calls != 5 {
		t.Errorf("objective called %d times, want training to stop at the panic", calls)
	}
	// Rolled back: nothing scored on this query, and the engine still trains.
	if _, _, err := en.Best(); !errors.Is(err, &Error{Status: StatusNoResult}) {
		t.Errorf("after the panic: got %v", err)
	}
	if rep, err := en.TrainBuiltin(DefaultTrainConfig(), DefaultObjective(MetricEEL)); err != nil || rep.Samples == 0 {
		t.Errorf("training after the panic: %v, %+v", err, rep)
	}
}

// TestCountsBeyondTheEngine: a count the engine cannot hold is the library's refusal, an
// error, with nothing allocated from it (a negative count made a slice of negative
// length, panicking; 1<<40 sessions was a fatal out of memory).
func TestCountsBeyondTheEngine(t *testing.T) {
	q := queries[0]
	en := newEngine(t, q, 16, 1)
	capacity, err := en.Capacity()
	if err != nil || capacity.Items != len(q.items) || capacity.Sessions != q.sessions || capacity.Batch != 16 {
		t.Fatalf("Capacity: got %+v, %v", capacity, err)
	}
	obj, cfg := DefaultObjective(MetricEEL), DefaultTrainConfig()
	if _, _, err := en.Rerank(q.items, -1, obj, cfg, 1); !errors.Is(err, &Error{Status: StatusInvalidArgument}) {
		t.Errorf("Rerank, -1 sessions: got %v", err)
	}
	for _, sessions := range []int{1 << 40, 1 << 25, q.sessions + 1} {
		if _, _, err := en.Rerank(q.items, sessions, obj, cfg, 1); !errors.Is(err, &Error{Status: StatusCapacity}) {
			t.Errorf("Rerank, %d sessions: got %v", sessions, err)
		}
	}
	more := append(append([]Item(nil), q.items...), Item{999, 1, 0})
	if _, _, err := en.Rerank(more, q.sessions, obj, cfg, 1); !errors.Is(err, &Error{Status: StatusCapacity}) {
		t.Errorf("Rerank, one item more than the engine's: got %v", err)
	}
	// The refused calls kept newEngine's query.
	for _, count := range []int{1 << 40, 17} {
		if _, err := en.Sample(count); !errors.Is(err, &Error{Status: StatusCapacity}) {
			t.Errorf("Sample(%d): got %v", count, err)
		}
	}
	if ids, err := en.Sample(16); err != nil || len(ids) != 16*len(q.items)*q.sessions {
		t.Errorf("Sample(16): %d ids, %v", len(ids), err)
	}
	if _, _, err := en.Rerank(q.items, q.sessions, obj, cfg, 1); err != nil {
		t.Errorf("Rerank within the engine: %v", err)
	}
}
