package ppg_test

import (
	"fmt"
	"log"

	"github.com/ppg-search/ppg/go"
)

// The README's Go example, verbatim between the markers (tests/readme.rs checks it): four
// items of equal utility, two groups, two sessions, trained on the built-in EEL.
func Example() {
	// README begin
	en, err := ppg.NewEngine(ppg.MethodPPG, 4, 2, 16, 42)
	if err != nil {
		log.Fatal(err)
	}
	defer en.Close()
	items := []ppg.Item{{ID: 1, Utility: 2, Group: 0}, {ID: 2, Utility: 2, Group: 0},
		{ID: 3, Utility: 2, Group: 1}, {ID: 4, Utility: 2, Group: 1}}
	if err := en.SetQuery(items, 2); err != nil {
		log.Fatal(err)
	}
	if _, err := en.TrainBuiltin(ppg.DefaultTrainConfig(), ppg.DefaultObjective(ppg.MetricEEL)); err != nil {
		log.Fatal(err)
	}
	best, cost, _ := en.Best()
	fmt.Println(len(best), cost < 0.01)
	// README end

	// Output: 8 true
}
