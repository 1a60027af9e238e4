package service

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/hyperctl/hyperctl/controller"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
)

// FuzzRequest decodes a request body as the server does (the strict JSON
// codec, or binary protobuf as gRPC sends it) into a CreateSessionRequest
// or an ObserveRequest, and validates it (build, checkObservation). A body
// that decodes is either refused with a FieldError naming a field, or
// accepted; an accepted session must suggest a configuration inside its
// space, observe a reward, and round-trip Snapshot → Restore; an accepted
// observation has only finite values. Nothing may panic. The seed corpus
// runs in `make test`; `make fuzz` explores.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		`{"sessionId":"a","space":[{"name":"lr","low":1e-5,"high":1e-3,"scale":"log"},{"name":"clip","low":0.1,"high":0.5}]}`,
		`{"space":[{"name":"x","low":-1e308,"high":1e308}],"method":"neuralbo"}`,
		`{"space":[{"name":"x","low":-8.9e307,"high":8.9e307}],"method":"neuralbo","settings":{"width":4}}`,
		`{"space":[{"name":"x","low":5e-324,"high":1.7976931348623157e308,"scale":"log"}],"method":"gpucb"}`,
		`{"space":[{"name":"x","low":"NaN","high":1}]}`,
		`{"space":[{"name":"x","low":0,"high":"Infinity"}]}`,
		`{"space":[{"name":"n","low":-9007199254740992,"high":9007199254740992,"integer":true}],"method":"hyperband"}`,
		`{"space":[{"name":"x","low":0,"high":1}],"method":"hypercontroller","settings":{"d":2,"s":8,"lambda":1e-300}}`,
		`{"space":[{"name":"x","low":0,"high":1}],"method":"bilevel","intervalAuto":true,"settings":{"steps_per_iteration":40}}`,
		`{"space":[{"name":"x","low":0,"high":1}],"settings":{"d":{"nested":[1,null,"x"]}}}`,
		`{"space":[{"name":"x","low":0,"high":1}],"settings":{"transfer_from":"/etc"},"method":"deltabo"}`,
		`{"space":[{"name":"x","low":0,"high":1}],"interval":3,"objective":"delta_per_second","seed":7,"iterations":50}`,
		`{"spce":[]}`,
		`not json`,
	} {
		f.Add(uint8(0), []byte(s))
	}
	for _, s := range []string{
		`{"sessionId":"a","iteration":3,"reward":1.5,"frames":2048,"elapsedSeconds":0.5,"returns":[1,2]}`,
		`{"sessionId":"a","iteration":0,"reward":"NaN"}`,
		`{"sessionId":"a","iteration":0,"reward":1e160}`,
		`{"sessionId":"a","iteration":-1,"reward":1}`,
		`{"sessionId":"a","iteration":0,"reward":1,"elapsedSeconds":"-Infinity"}`,
		`{"sessionId":"a","iteration":0,"reward":1,"returns":[1,"Infinity"]}`,
		`{"sessionId":"a","iteration":2147483647,"reward":-1e100,"frames":"9223372036854775807"}`,
	} {
		f.Add(uint8(2), []byte(s))
	}
	create, _ := proto.Marshal(&hyperctlv1.CreateSessionRequest{Space: []*hyperctlv1.Param{{Name: "x", Low: math.Inf(-1), High: 0}}, Method: "random"})
	f.Add(uint8(1), create)
	observe, _ := proto.Marshal(&hyperctlv1.ObserveRequest{SessionId: "a", Reward: math.NaN(), ElapsedSeconds: math.Inf(1)})
	f.Add(uint8(3), observe)

	codec := strictJSON{name: "json"}
	decode := func(kind uint8, body []byte, m proto.Message) bool {
		if kind%2 == 0 {
			return codec.Unmarshal(body, m) == nil
		}
		return proto.Unmarshal(body, m) == nil
	}
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		if kind%4 < 2 {
			var req hyperctlv1.CreateSessionRequest
			if !decode(kind, body, &req) {
				return
			}
			b, err := build(&req)
			if err != nil {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Field == "" || fe.Msg == "" {
					t.Fatalf("refused without naming a field: %v (%T)", err, err)
				}
				return
			}
			fuzzSession(t, &req, b)
			return
		}
		var req hyperctlv1.ObserveRequest
		if !decode(kind, body, &req) {
			return
		}
		if err := checkObservation(&req); err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field == "" {
				t.Fatalf("refused without naming a field: %v", err)
			}
			return
		}
		for _, v := range append([]float64{req.GetReward(), req.GetElapsedSeconds()}, req.GetReturns()...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted a non-finite value: %v", &req)
			}
		}
	})
}

// fuzzSession checks an accepted definition: a valid first suggestion, an
// observation, and a snapshot that restores into a fresh build.
func fuzzSession(t *testing.T, req *hyperctlv1.CreateSessionRequest, b *built) {
	t.Helper()
	for i := range b.space.Dim() {
		p := b.space.Param(i)
		if strings.TrimSpace(p.Name) == "" || math.IsInf(p.High-p.Low, 0) {
			t.Fatalf("accepted parameter %+v", p)
		}
	}
	cfg, err := b.ctl.Suggest()
	if err != nil {
		t.Fatalf("accepted %v, then Suggest: %v", req, err)
	}
	if err := b.space.Validate(cfg); err != nil {
		t.Fatalf("accepted %v, then suggested %v: %v", req, cfg, err)
	}
	if err := b.ctl.Observe(controller.Result{Reward: 1, Frames: 1, Elapsed: time.Millisecond}); err != nil {
		t.Fatalf("accepted %v, then Observe: %v", req, err)
	}
	snap, err := b.ctl.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := build(req)
	if err != nil {
		t.Fatalf("accepted %v once, then refused it: %v", req, err)
	}
	if err := fresh.ctl.Restore(snap); err != nil {
		t.Fatalf("accepted %v; its snapshot does not restore: %v", req, err)
	}
}
