// Command ppg-consumer re-ranks every query of a `ppg rerank` input through the Go
// binding and prints what `ppg rerank FILE --seed SEED --sessions SESSIONS` prints:
//
//	ppg-consumer FILE SEED SESSIONS
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/ppg-search/ppg/go"
)

type query struct {
	qid     string
	item    []string
	score   []float64
	utility []float64
	group   []uint32
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: ppg-consumer FILE SEED SESSIONS")
		os.Exit(2)
	}
	seed, err1 := strconv.ParseUint(os.Args[2], 10, 64)
	sessions, err2 := strconv.Atoi(os.Args[3])
	text, err3 := os.ReadFile(os.Args[1])
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			fmt.Fprintln(os.Stderr, "ppg-consumer:", err)
			os.Exit(2)
		}
	}
	qs, err := parse(string(text))
	if err != nil {
		fmt.Fprintln(os.Stderr, "ppg-consumer:", err)
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	fmt.Fprintln(w, "qid\tsession\trank\titem")
	for index, q := range qs {
		order := startingOrder(q.score)
		rankings, err := rerank(q, order, querySeed(seed, uint64(index)), sessions)
		if err != nil {
			fmt.Fprintf(os.Stderr, "ppg-consumer: query %s: %v\n", q.qid, err)
			os.Exit(1)
		}
		n := len(order)
		for s := 0; s < sessions; s++ {
			for rank, k := range rankings[s*n : (s+1)*n] {
				fmt.Fprintf(w, "%s\t%d\t%d\t%s\n", q.qid, s+1, rank+1, q.item[order[k]])
			}
		}
	}
}

// startingOrder is `ppg rerank`'s starting ranking: rows by score, descending; ties:
// the later row first. order[k] is the row at position k.
func startingOrder(score []float64) []int {
	order := make([]int, len(score))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return score[order[a]] < score[order[b]] })
	for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
		order[i], order[j] = order[j], order[i]
	}
	return order
}

// mix is SplitMix64's finaliser, the mixing step of `ppg rerank`'s seeds.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// querySeed is the seed `ppg rerank --seed seed` gives the query at index (input order).
func querySeed(seed, index uint64) uint64 { return mix(mix(seed) ^ mix(index)) }

// rerank trains as `ppg rerank` does without options (EEL with 5 levels, exposure from
// rank 1, group order held for the first part of a run, the input scored first,
// sessions grown) and returns the best rankings as positions of the starting order.
func rerank(q query, order []int, seed uint64, sessions int) ([]int, error) {
	n := len(order)
	out := make([]int, 0, n*sessions)
	groups := map[uint32]bool{}
	for _, g := range q.group {
		groups[g] = true
	}
	if n < 2 || len(groups) < 2 {
		// One group: nothing to optimise, the input ranking is the answer.
		for s := 0; s < sessions; s++ {
			for k := 0; k < n; k++ {
				out = append(out, k)
			}
		}
		return out, nil
	}
	// The recipe in one call, as `ppg rerank` runs it (the library's defaults are the
	// CLI's): the step-wise calls train but do not take the recipe's last step, the most
	// relevant of the rankings as fair as the one found.
	cfg := ppg.DefaultTrainConfig()
	engine, err := ppg.NewEngine(ppg.MethodPPG, n, sessions, cfg.Batch, seed)
	if err != nil {
		return nil, err
	}
	defer engine.Close()
	items := make([]ppg.Item, n)
	for k, row := range order {
		items[k] = ppg.Item{ID: uint64(k), Utility: q.utility[row], Group: q.group[row]}
	}
	best, _, err := engine.Rerank(items, sessions, ppg.DefaultObjective(ppg.MetricEEL), cfg, seed)
	if err != nil {
		return nil, err
	}
	for _, id := range best {
		out = append(out, int(id))
	}
	return out, nil
}

// parse reads a `ppg rerank` input: a header naming qid, item, score, group and
// optionally label (the utility; else the score), a query's rows together. Group ids
// go by first appearance in the file.
func parse(text string) ([]query, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	col := map[string]int{}
	for i, name := range strings.Split(lines[0], "\t") {
		col[name] = i
	}
	for _, name := range []string{"qid", "item", "score", "group"} {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("no %s column", name)
		}
	}
	label, hasLabel := col["label"]
	groupID := map[string]uint32{}
	var qs []query
	for _, line := range lines[1:] {
		f := strings.Split(line, "\t")
		if len(qs) == 0 || qs[len(qs)-1].qid != f[col["qid"]] {
			qs = append(qs, query{qid: f[col["qid"]]})
		}
		q := &qs[len(qs)-1]
		score, err := strconv.ParseFloat(f[col["score"]], 64)
		if err != nil {
			return nil, err
		}
		utility := score
		if hasLabel {
			if utility, err = strconv.ParseFloat(f[label], 64); err != nil {
				return nil, err
			}
		}
		g, seen := groupID[f[col["group"]]]
		if !seen {
			g = uint32(len(groupID))
			groupID[f[col["group"]]] = g
		}
		q.item = append(q.item, f[col["item"]])
		q.score = append(q.score, score)
		q.utility = append(q.utility, utility)
		q.group = append(q.group, g)
	}
	return qs, nil
}
