// Package ppg is a Go binding of the C API of PPG search (include/ppg.h): Probabilistic
// Permutation Graph search for fair ranking.
//
// It links the installed C library through pkg-config (`#cgo pkg-config: ppg`): install
// libppg first (the release archive's scripts/install, or a distribution package), and
// point PKG_CONFIG_PATH at its lib/pkgconfig when that is not a system folder. The
// program then loads libppg.so at run time, from the loader's path (LD_LIBRARY_PATH, or
// a run path such as CGO_LDFLAGS="-Wl,-rpath,PREFIX/lib").
//
// Every call that fails returns an *Error carrying the C status and its message; as in
// the C API, a failed call changed nothing, so carrying on is safe. An Engine is not
// safe for concurrent use (one goroutine at a time); distinct engines are independent.
// Close it when done: it holds memory that Go's garbage collector does not see.
//
// The file stays whole (over 400 lines): it is the binding of one header, one Go method
// per C function in the header's order, so a reader checks it against ppg.h side by side.
package ppg

/*
#cgo pkg-config: ppg
#include <ppg.h>

// Defined in callback.go (exported from Go). Its generated prototype drops the const
// and takes the handle as an integer, hence this shim of the exact ppg_cost_fn type.
extern double ppgGoCost(uint64_t *ranking, size_t len, size_t sessions, uintptr_t user);

static double ppg_go_cost(const uint64_t *ranking, size_t len, size_t sessions, void *user) {
	return ppgGoCost((uint64_t *)ranking, len, sessions, (uintptr_t)user);
}

// The cgo.Handle crosses as an integer and becomes the `void *user` here, in C.
static ppg_status ppg_go_train(ppg_engine *engine, const ppg_train_config *config,
                               uintptr_t handle, ppg_train_report *report) {
	return ppg_engine_train(engine, config, ppg_go_cost, (void *)handle, report);
}
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// Status values of the C API (ppg_status).
const (
	StatusOK               = int(C.PPG_STATUS_OK)
	StatusNullParameter    = int(C.PPG_STATUS_NULL_PARAMETER)
	StatusInvalidArgument  = int(C.PPG_STATUS_INVALID_ARGUMENT)
	StatusCapacity         = int(C.PPG_STATUS_CAPACITY)
	StatusMemoryTooSmall   = int(C.PPG_STATUS_MEMORY_TOO_SMALL)
	StatusMisaligned       = int(C.PPG_STATUS_MISALIGNED)
	StatusNotPermutation   = int(C.PPG_STATUS_NOT_PERMUTATION)
	StatusItemOutOfRange   = int(C.PPG_STATUS_ITEM_OUT_OF_RANGE)
	StatusDuplicateItem    = int(C.PPG_STATUS_DUPLICATE_ITEM)
	StatusUnknownItem      = int(C.PPG_STATUS_UNKNOWN_ITEM)
	StatusNotFinite        = int(C.PPG_STATUS_NOT_FINITE)
	StatusNoQuery          = int(C.PPG_STATUS_NO_QUERY)
	StatusNoPendingBatch   = int(C.PPG_STATUS_NO_PENDING_BATCH)
	StatusUnknownSample    = int(C.PPG_STATUS_UNKNOWN_SAMPLE)
	StatusUnsupported      = int(C.PPG_STATUS_UNSUPPORTED)
	StatusNoResult         = int(C.PPG_STATUS_NO_RESULT)
	StatusAllocationFailed = int(C.PPG_STATUS_ALLOCATION_FAILED)
	StatusPanic            = int(C.PPG_STATUS_PANIC)
	StatusVersionMismatch  = int(C.PPG_STATUS_VERSION_MISMATCH)
)

// Error is a failed C call: Status is its ppg_status, Msg ppg_status_str's message and
// Op the C function.
type Error struct {
	Status int
	Msg    string
	Op     string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s (status %d)", e.Op, e.Msg, e.Status) }

// Is makes errors.Is(err, &ppg.Error{Status: ppg.StatusUnknownItem}) match on the status.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status
}

func check(status C.ppg_status, op string) error {
	if status == C.PPG_STATUS_OK {
		return nil
	}
	return &Error{Status: int(status), Msg: C.GoString(C.ppg_status_str(C.uint32_t(status))), Op: op}
}

// Version is the library's version, e.g. "0.2.0".
func Version() string { return C.GoString(C.ppg_version()) }

// Method picks the optimiser of an engine.
type Method uint32

const (
	MethodPPG Method = C.PPG_METHOD_PPG // PPG search (the paper's method)
	MethodPL  Method = C.PPG_METHOD_PL  // the Plackett-Luce baseline (no constraints)
)

// Sampler picks how PPG draws a ranking.
type Sampler uint32

const (
	SamplerUncorrected Sampler = C.PPG_SAMPLER_UNCORRECTED
	SamplerCorrected   Sampler = C.PPG_SAMPLER_CORRECTED
)

// Gradient picks PPG's score function.
type Gradient uint32

const (
	GradientApproximate Gradient = C.PPG_GRADIENT_APPROXIMATE
	GradientExact       Gradient = C.PPG_GRADIENT_EXACT
)

// Metric is a built-in objective (a cost, lower is better).
type Metric uint32

const (
	MetricDTR        Metric = C.PPG_METRIC_DTR
	MetricEEL        Metric = C.PPG_METRIC_EEL
	MetricNDCG       Metric = C.PPG_METRIC_NDCG
	MetricDTRNDCGMix Metric = C.PPG_METRIC_DTR_NDCG_MIX
	MetricEELNDCGMix Metric = C.PPG_METRIC_EEL_NDCG_MIX
	// MetricExpectedExposure is TREC 2020's expected exposure in the library's default
	// settings (EE-L normalised, group level, the published cascade with patience 0.5).
	MetricExpectedExposure Metric = C.PPG_METRIC_EXPECTED_EXPOSURE
	// MetricAWRF is 1 - AWRF x NDCG as TREC 2021 scored a ranking.
	MetricAWRF Metric = C.PPG_METRIC_AWRF
)

// RankStart is where the fairness metrics' exposure starts counting ranks.
type RankStart uint32

const (
	RankStartZero RankStart = C.PPG_RANK_START_ZERO
	RankStartOne  RankStart = C.PPG_RANK_START_ONE
)

// Item is one item of a query; a query lists them in ranked order (the input ranking).
type Item struct {
	ID      uint64
	Utility float64
	Group   uint32
}

// TrainConfig is the training recipe (ppg_train_config; see include/ppg.h).
type TrainConfig struct {
	LearningRate   float64
	Epochs         uint32
	Batch          int
	Patience       uint32
	ClampMin       float64
	ClampMax       float64
	Sampler        Sampler
	Gradient       Gradient
	Baseline       bool
	ScoreInput     bool
	InitialWeight  float64
	PLLearningRate float64
	Grow           bool
	// Intra keeps the input order within each group (Rerank).
	Intra bool
	// Hold keeps the order within groups for a first run, then frees it.
	Hold bool
	// Certify stops training within CertifyTolerance of the exact optimum, where the
	// objective has one (two-group DTR or EEL).
	Certify          bool
	CertifyTolerance float64
}

// DefaultTrainConfig is the recommended recipe (what ppg rerank and Python run): the
// input scored first, grown over sessions, the order within groups held first, certified.
func DefaultTrainConfig() TrainConfig {
	var c C.ppg_train_config
	if err := check(C.ppg_train_config_init(&c, C.size_t(unsafe.Sizeof(c))), "ppg_train_config_init"); err != nil {
		panic(err) // only a NULL or misaligned pointer fails, never this one
	}
	return trainConfig(c)
}

// ReferenceTrainConfig is the paper's reference run.
func ReferenceTrainConfig() TrainConfig {
	var c C.ppg_train_config
	if err := check(C.ppg_train_config_init_reference(&c, C.size_t(unsafe.Sizeof(c))), "ppg_train_config_init_reference"); err != nil {
		panic(err) // only a NULL or misaligned pointer fails, never this one
	}
	return trainConfig(c)
}

func trainConfig(c C.ppg_train_config) TrainConfig {
	return TrainConfig{
		LearningRate:     float64(c.learning_rate),
		Epochs:           uint32(c.epochs),
		Batch:            int(c.batch),
		Patience:         uint32(c.patience),
		ClampMin:         float64(c.clamp_min),
		ClampMax:         float64(c.clamp_max),
		Sampler:          Sampler(c.sampler),
		Gradient:         Gradient(c.gradient),
		Baseline:         bool(c.baseline),
		ScoreInput:       bool(c.score_input),
		InitialWeight:    float64(c.initial_weight),
		PLLearningRate:   float64(c.pl_learning_rate),
		Grow:             bool(c.grow),
		Intra:            bool(c.intra),
		Hold:             bool(c.hold),
		Certify:          bool(c.certify),
		CertifyTolerance: float64(c.certify_tolerance),
	}
}

func (t TrainConfig) c() C.ppg_train_config {
	return C.ppg_train_config{
		struct_size:       C.uint32_t(unsafe.Sizeof(C.ppg_train_config{})),
		learning_rate:     C.double(t.LearningRate),
		epochs:            C.uint32_t(t.Epochs),
		batch:             C.size_t(t.Batch),
		patience:          C.uint32_t(t.Patience),
		clamp_min:         C.double(t.ClampMin),
		clamp_max:         C.double(t.ClampMax),
		sampler:           C.uint32_t(t.Sampler),
		gradient:          C.uint32_t(t.Gradient),
		baseline:          C.bool(t.Baseline),
		score_input:       C.bool(t.ScoreInput),
		initial_weight:    C.double(t.InitialWeight),
		pl_learning_rate:  C.double(t.PLLearningRate),
		grow:              C.bool(t.Grow),
		intra:             C.bool(t.Intra),
		hold:              C.bool(t.Hold),
		certify:           C.bool(t.Certify),
		certify_tolerance: C.double(t.CertifyTolerance),
	}
}

// ObjectiveConfig is a built-in objective (ppg_objective_config).
type ObjectiveConfig struct {
	Metric    Metric
	EELLevels uint32
	NDCGK     int
	MixWeight float64
	RankStart RankStart
}

// DefaultObjective is the library's default objective with its metric set to m.
func DefaultObjective(m Metric) ObjectiveConfig {
	var c C.ppg_objective_config
	if err := check(C.ppg_objective_config_init(&c, C.size_t(unsafe.Sizeof(c))), "ppg_objective_config_init"); err != nil {
		panic(err) // only a NULL or misaligned pointer fails, never this one
	}
	return ObjectiveConfig{
		Metric:    m,
		EELLevels: uint32(c.eel_levels),
		NDCGK:     int(c.ndcg_k),
		MixWeight: float64(c.mix_weight),
		RankStart: RankStart(c.rank_start),
	}
}

func (o ObjectiveConfig) c() C.ppg_objective_config {
	// The library's defaults first: the fields this wrapper does not carry (the browsing
	// model of PPG_METRIC_EXPECTED_EXPOSURE) keep them.
	var c C.ppg_objective_config
	if err := check(C.ppg_objective_config_init(&c, C.size_t(unsafe.Sizeof(c))), "ppg_objective_config_init"); err != nil {
		panic(err) // only a NULL or misaligned pointer fails, never this one
	}
	c.metric = C.uint32_t(o.Metric)
	c.eel_levels = C.uint32_t(o.EELLevels)
	c.ndcg_k = C.size_t(o.NDCGK)
	c.mix_weight = C.double(o.MixWeight)
	c.rank_start = C.uint32_t(o.RankStart)
	return c
}

// TrainReport says what a training run did.
type TrainReport struct {
	Epochs    uint32
	Samples   uint32
	BestCost  float64
	BestEpoch int64 // -1 when the run found no new best
	// Certified: BestCost is within the recipe's tolerance of Bound.
	Certified  bool
	BoundExact bool
	Bound      float64 // NaN without a bound
	Gap        float64 // NaN without a bound
	// PassedThrough (Rerank only): the objective has no value for the query (AWRF or
	// group-level expected exposure without an item of utility > 0); its input ranking
	// was returned untrained, BestCost NaN, as ppg rerank passes such a query through.
	PassedThrough bool
}

// newReport is a report prepared for a training call (its struct_size set).
func newReport() C.ppg_train_report {
	var r C.ppg_train_report
	if err := check(C.ppg_train_report_init(&r, C.size_t(unsafe.Sizeof(r))), "ppg_train_report_init"); err != nil {
		panic(err) // only a NULL or misaligned pointer fails, never this one
	}
	return r
}

func report(r C.ppg_train_report) TrainReport {
	return TrainReport{
		Epochs:     uint32(r.epochs),
		Samples:    uint32(r.samples),
		BestCost:   float64(r.best_cost),
		BestEpoch:  int64(r.best_epoch),
		Certified:  bool(r.certified),
		BoundExact: bool(r.bound_exact),
		Bound:      float64(r.bound),
		Gap:        float64(r.gap),

		PassedThrough: bool(r.passed_through),
	}
}

// QuerySeed is the seed ppg rerank --seed seed gives the query at index (0-based).
func QuerySeed(seed, index uint64) uint64 {
	return uint64(C.ppg_query_seed(C.uint64_t(seed), C.uint64_t(index)))
}

// Rerank re-ranks one query in one call (ppg_engine_rerank): items in their input
// ranking, shown in sessions sessions, with the recipe cfg, the objective obj and seed.
// It returns the sessions rankings of the items' ids, laid end to end.
func (en *Engine) Rerank(items []Item, sessions int, obj ObjectiveConfig, cfg TrainConfig, seed uint64) ([]uint64, TrainReport, error) {
	cs := make([]C.ppg_item, len(items))
	for k, it := range items {
		cs[k] = C.ppg_item{id: C.uint64_t(it.ID), utility: C.double(it.Utility), group: C.uint32_t(it.Group)}
	}
	var p *C.ppg_item
	if len(cs) > 0 {
		p = &cs[0]
	}
	c, o, r := cfg.c(), obj.c(), newReport()
	if sessions < 0 {
		return nil, TrainReport{}, &Error{Status: StatusInvalidArgument, Msg: "negative sessions", Op: "ppg_engine_rerank"}
	}
	capacity, err := en.Capacity()
	if err != nil {
		return nil, TrainReport{}, err
	}
	// More items or sessions than the engine holds: the library refuses them before it
	// looks at the buffer, so none is allocated from the caller's counts.
	var none C.uint64_t
	outp, outLen, out := &none, 0, []uint64(nil)
	if len(items) <= capacity.Items && sessions <= capacity.Sessions {
		out = make([]uint64, len(items)*sessions)
		outp, outLen = u64ptr(out), len(out)
	}
	status := C.ppg_engine_rerank(en.e, p, C.size_t(len(cs)), C.size_t(sessions), &o, &c,
		C.uint64_t(seed), outp, C.size_t(outLen), &r)
	if err := check(status, "ppg_engine_rerank"); err != nil {
		return nil, TrainReport{}, err
	}
	return out, report(r), nil
}

// Capacity is the most an engine holds: the counts it was made with.
type Capacity struct {
	Items    int // items per session
	Sessions int // sessions of a query
	Batch    int // samples per step
}

// Capacity is the engine's layout (ppg_engine_capacity).
func (en *Engine) Capacity() (Capacity, error) {
	var items, sessions, batch C.size_t
	if err := check(C.ppg_engine_capacity(en.e, &items, &sessions, &batch), "ppg_engine_capacity"); err != nil {
		return Capacity{}, err
	}
	return Capacity{Items: int(items), Sessions: int(sessions), Batch: int(batch)}, nil
}

// Engine is a PPG (or PL) engine in C memory. Not safe for concurrent use.
type Engine struct {
	e *C.ppg_engine
}

// NewEngine allocates an engine for queries of up to items items over sessions
// sessions, batch samples per step, its generator seeded with seed.
func NewEngine(method Method, items, sessions, batch int, seed uint64) (*Engine, error) {
	if items < 0 || sessions < 0 || batch < 0 {
		return nil, &Error{Status: StatusInvalidArgument, Msg: "negative count", Op: "ppg_engine_new"}
	}
	var e *C.ppg_engine
	status := C.ppg_engine_new(C.uint32_t(method), C.size_t(items), C.size_t(sessions),
		C.size_t(batch), C.uint64_t(seed), &e)
	if err := check(status, "ppg_engine_new"); err != nil {
		return nil, err
	}
	return &Engine{e: e}, nil
}

// Close frees the engine. Closing twice is harmless; any other call on a closed engine
// returns an *Error with StatusNullParameter.
func (en *Engine) Close() error {
	C.ppg_engine_free(en.e)
	en.e = nil
	return nil
}

func u64ptr(s []uint64) *C.uint64_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.uint64_t)(unsafe.Pointer(&s[0]))
}

// SetQuery starts a query: items in ranked order, repeated over sessions sessions.
func (en *Engine) SetQuery(items []Item, sessions int) error {
	if sessions < 0 {
		return &Error{Status: StatusInvalidArgument, Msg: "negative sessions", Op: "ppg_engine_set_query"}
	}
	cs := make([]C.ppg_item, len(items))
	for k, it := range items {
		cs[k] = C.ppg_item{id: C.uint64_t(it.ID), utility: C.double(it.Utility), group: C.uint32_t(it.Group)}
	}
	var p *C.ppg_item
	if len(cs) > 0 {
		p = &cs[0]
	}
	return check(C.ppg_engine_set_query(en.e, p, C.size_t(len(cs)), C.size_t(sessions)), "ppg_engine_set_query")
}

// RankingLen is items * sessions of the current query.
func (en *Engine) RankingLen() (int, error) {
	var n C.size_t
	if err := check(C.ppg_engine_ranking_len(en.e, &n), "ppg_engine_ranking_len"); err != nil {
		return 0, err
	}
	return int(n), nil
}

// Forbid keeps items a and b (ids) in their input order in every session.
func (en *Engine) Forbid(a, b uint64) error {
	return check(C.ppg_engine_forbid(en.e, C.uint64_t(a), C.uint64_t(b)), "ppg_engine_forbid")
}

// KeepOrderWithinGroups keeps the items of each group in their input order.
func (en *Engine) KeepOrderWithinGroups() error {
	return check(C.ppg_engine_keep_order_within_groups(en.e), "ppg_engine_keep_order_within_groups")
}

// HoldOrderWithinGroups keeps the items of each group in their input order for a first
// training run, then frees them for a second run from the best ranking found.
func (en *Engine) HoldOrderWithinGroups() error {
	return check(C.ppg_engine_hold_order_within_groups(en.e), "ppg_engine_hold_order_within_groups")
}

// KeepOrderBetween keeps items with different labels in their input order; labels[k]
// labels the k-th item of the query.
func (en *Engine) KeepOrderBetween(labels []uint32) error {
	var p *C.uint32_t
	if len(labels) > 0 {
		p = (*C.uint32_t)(unsafe.Pointer(&labels[0]))
	}
	return check(C.ppg_engine_keep_order_between(en.e, p, C.size_t(len(labels))), "ppg_engine_keep_order_between")
}

// SetSampler chooses the sampler Sample draws with.
func (en *Engine) SetSampler(s Sampler) error {
	return check(C.ppg_engine_set_sampler(en.e, C.uint32_t(s)), "ppg_engine_set_sampler")
}

// Sample draws count rankings (count * RankingLen() ids, one after the other) and keeps
// them pending for Update.
func (en *Engine) Sample(count int) ([]uint64, error) {
	n, err := en.RankingLen()
	if err != nil {
		return nil, err
	}
	if count <= 0 {
		return nil, &Error{Status: StatusInvalidArgument, Msg: "count must be positive", Op: "ppg_engine_sample"}
	}
	capacity, err := en.Capacity()
	if err != nil {
		return nil, err
	}
	if count > capacity.Batch {
		// The library refuses the count (PPG_STATUS_CAPACITY) before it looks at the
		// buffer: nothing is allocated from it.
		var none C.uint64_t
		return nil, check(C.ppg_engine_sample(en.e, C.size_t(count), &none, 0), "ppg_engine_sample")
	}
	ids := make([]uint64, count*n)
	if err := check(C.ppg_engine_sample(en.e, C.size_t(count), u64ptr(ids), C.size_t(len(ids))), "ppg_engine_sample"); err != nil {
		return nil, err
	}
	return ids, nil
}

// Update is one training step on the pending batch: rankings as Sample returned them,
// costs[k] the cost of the k-th ranking. cfg.Batch is ignored (the batch is the
// pending one).
func (en *Engine) Update(rankings []uint64, costs []float64, cfg TrainConfig) error {
	c := cfg.c()
	var cp *C.double
	if len(costs) > 0 {
		cp = (*C.double)(unsafe.Pointer(&costs[0]))
	}
	return check(C.ppg_engine_update(en.e, u64ptr(rankings), C.size_t(len(rankings)), cp,
		C.size_t(len(costs)), &c), "ppg_engine_update")
}

// Best is the lowest-cost ranking scored since the query was set, and its cost.
func (en *Engine) Best() ([]uint64, float64, error) {
	n, err := en.RankingLen()
	if err != nil {
		return nil, 0, err
	}
	ids := make([]uint64, n)
	var cost C.double
	if err := check(C.ppg_engine_best(en.e, u64ptr(ids), C.size_t(n), &cost), "ppg_engine_best"); err != nil {
		return nil, 0, err
	}
	return ids, float64(cost), nil
}

// Train trains against objective(ranking, sessions), lower is better. ranking is a view
// of the engine's memory, valid during the call only: copy what you keep. If objective
// panics, training stops, the engine is restored to its state before Train, and Train
// panics with the same value. objective must not call runtime.Goexit (t.FailNow in a
// test): that would unwind through the library.
func (en *Engine) Train(cfg TrainConfig, objective func(ranking []uint64, sessions int) float64) (TrainReport, error) {
	ctx := &trainContext{objective: objective}
	h := cgo.NewHandle(ctx)
	defer h.Delete()
	c := cfg.c()
	r := newReport()
	status := C.ppg_go_train(en.e, &c, C.uintptr_t(h), &r)
	if ctx.panicked {
		panic(ctx.panicVal)
	}
	if err := check(status, "ppg_engine_train"); err != nil {
		return TrainReport{}, err
	}
	return report(r), nil
}

// TrainBuiltin trains against a built-in objective over the query's utilities and groups.
func (en *Engine) TrainBuiltin(cfg TrainConfig, obj ObjectiveConfig) (TrainReport, error) {
	c := cfg.c()
	o := obj.c()
	r := newReport()
	if err := check(C.ppg_engine_train_builtin(en.e, &c, &o, &r), "ppg_engine_train_builtin"); err != nil {
		return TrainReport{}, err
	}
	return report(r), nil
}

// Evaluate is the built-in objective's cost of ranking (RankingLen() ids).
func (en *Engine) Evaluate(obj ObjectiveConfig, ranking []uint64) (float64, error) {
	o := obj.c()
	var v C.double
	if err := check(C.ppg_engine_evaluate(en.e, &o, u64ptr(ranking), C.size_t(len(ranking)), &v), "ppg_engine_evaluate"); err != nil {
		return 0, err
	}
	return float64(v), nil
}
