package main

import (
	"sort"
	"testing"
)

// The seeds of `ppg rerank`: its own golden values (ppg-core's seed.rs).
func TestQuerySeedIsTheCLIs(t *testing.T) {
	if got := mix(0); got != 0xe220a8397b1dcdaf {
		t.Fatalf("mix(0) = %#x", got)
	}
	if querySeed(1, 0) == querySeed(1, 1) {
		t.Fatal("two queries got one seed")
	}
}

// Ties: the later row first; otherwise by score, descending.
func TestStartingOrder(t *testing.T) {
	got := startingOrder([]float64{1, 3, 1, 2})
	want := []int{1, 3, 2, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("startingOrder = %v, want %v", got, want)
		}
	}
}

// Each session of the result holds every position once.
func TestRerankGivesPermutations(t *testing.T) {
	qs, err := parse("qid\titem\tscore\tgroup\tlabel\n" +
		"q\ta\t4\tx\t4\nq\tb\t3\tx\t3\nq\tc\t2\ty\t3\nq\td\t1\tx\t1\nq\te\t0\ty\t0\n")
	if err != nil {
		t.Fatal(err)
	}
	order := startingOrder(qs[0].score)
	got, err := rerank(qs[0], order, querySeed(7, 0), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 15 {
		t.Fatalf("%d positions, want 15", len(got))
	}
	for s := 0; s < 3; s++ {
		session := append([]int(nil), got[s*5:(s+1)*5]...)
		sort.Ints(session)
		for k, v := range session {
			if k != v {
				t.Fatalf("session %d is not a permutation: %v", s, got[s*5:(s+1)*5])
			}
		}
	}
}
