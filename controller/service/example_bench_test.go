package service_test

import (
	"fmt"

	"github.com/hyperctl/hyperctl/controller/service"
)

// A measurement's percentiles, as `hyperctl bench serve` reports them.
func ExampleLatencies_Percentile() {
	l := service.Latencies{40, 10, 30, 20, 50}
	fmt.Println(l.Percentile(0.5), l.Percentile(1))
	// Output: 30ns 50ns
}
