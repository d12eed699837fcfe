package ppg

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestDoors is the Go door of the same-answer test (tests/bindings.rs): with PPG_DOORS_ROWS
// naming tests/doors/rows.tsv and PPG_DOORS_OUT a file, it re-ranks each query with Rerank
// under the recommended recipe (PPG_DOORS_METRIC: eel, the default, or ee, the official
// expected exposure; PPG_DOORS_SESSIONS sessions, 1 to 3, default 3, query k seeded with
// QuerySeed(11, k)) and writes what `ppg rerank --metric METRIC --sessions SESSIONS --seed
// 11` prints. Skipped otherwise.
func TestDoors(t *testing.T) {
	rows, out := os.Getenv("PPG_DOORS_ROWS"), os.Getenv("PPG_DOORS_OUT")
	if rows == "" || out == "" {
		t.Skip("PPG_DOORS_ROWS and PPG_DOORS_OUT not set")
	}
	const maxSessions, seed = 3, 11
	sessions := maxSessions
	if v := os.Getenv("PPG_DOORS_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxSessions {
			t.Fatalf("PPG_DOORS_SESSIONS: %q is not 1 to %d", v, maxSessions)
		}
		sessions = n
	}
	metric := MetricEEL
	switch os.Getenv("PPG_DOORS_METRIC") {
	case "", "eel":
	case "ee":
		metric = MetricExpectedExposure
	default:
		t.Fatalf("PPG_DOORS_METRIC: %q is neither eel nor ee", os.Getenv("PPG_DOORS_METRIC"))
	}
	f, err := os.Open(rows)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	en, err := NewEngine(MethodPPG, 64, maxSessions, 16, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer en.Close()
	var b strings.Builder
	b.WriteString("qid\tsession\trank\titem\n")
	var qid string
	var items []Item
	k := uint64(0)
	flush := func() {
		ranked, _, err := en.Rerank(items, sessions, DefaultObjective(metric), DefaultTrainConfig(), QuerySeed(seed, k))
		if err != nil {
			t.Fatalf("query %s: %v", qid, err)
		}
		n := len(items)
		for s := 0; s < sessions; s++ {
			for r := 0; r < n; r++ {
				fmt.Fprintf(&b, "%s\t%d\t%d\t%d\n", qid, s+1, r+1, ranked[s*n+r])
			}
		}
		k++
		items = items[:0]
	}
	scan := bufio.NewScanner(f)
	scan.Scan() // the header
	for scan.Scan() {
		c := strings.Split(scan.Text(), "\t")
		if len(c) != 5 {
			t.Fatalf("a malformed row: %q", scan.Text())
		}
		if len(items) > 0 && c[0] != qid {
			flush()
		}
		qid = c[0]
		id, err1 := strconv.ParseUint(c[1], 10, 64)
		group, err2 := strconv.ParseUint(c[3], 10, 32)
		label, err3 := strconv.ParseFloat(c[4], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("a malformed row: %q", scan.Text())
		}
		items = append(items, Item{ID: id, Utility: label, Group: uint32(group)})
	}
	if len(items) > 0 {
		flush()
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
