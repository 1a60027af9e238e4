package tbpb_test

import (
	"fmt"
	"log"

	"google.golang.org/protobuf/proto"

	"github.com/hyperctl/hyperctl/experiment/tbevents/tbpb"
)

// A scalar summary event, encoded as a TFRecord's data and decoded back.
func ExampleEvent() {
	ev := &tbpb.Event{Step: 4096, WallTime: 1.5, What: &tbpb.Event_Summary{Summary: &tbpb.Summary{
		Value: []*tbpb.Summary_Value{{Tag: "train/reward", Value: &tbpb.Summary_Value_SimpleValue{SimpleValue: -0.25}}},
	}}}
	b, err := proto.Marshal(ev)
	if err != nil {
		log.Fatal(err)
	}
	var got tbpb.Event
	if err := proto.Unmarshal(b, &got); err != nil {
		log.Fatal(err)
	}
	v := got.GetSummary().GetValue()[0]
	fmt.Println(got.GetStep(), v.GetTag(), v.GetSimpleValue())
	// Output:
	// 4096 train/reward -0.25
}
