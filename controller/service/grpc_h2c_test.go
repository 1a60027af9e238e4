package service

import (
	"context"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"

	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
	"github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1/hyperctlv1connect"
)

// gRPC over h2c (HTTP/2 without TLS) goes through serve's whole handler,
// the body guard included: its trailers and flushes pass.
func TestGRPCOverH2C(t *testing.T) {
	s := newTestServer(t, "", func(o *Options) { o.KeepAwake = -1 })
	defer s.Close()
	addr := serveHTTP(t, s, HandlerOptions{BodyTimeout: time.Second}, time.Minute, time.Minute)
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	hc := &http.Client{Transport: &http.Transport{Protocols: &protocols}}
	c := hyperctlv1connect.NewControllerServiceClient(hc, "http://"+addr, connect.WithGRPC())
	ctx := context.Background()
	if _, err := c.CreateSession(ctx, connect.NewRequest(&hyperctlv1.CreateSessionRequest{SessionId: "g", Space: unitParam(), Seed: 1})); err != nil {
		t.Fatal(err)
	}
	h, err := c.Health(ctx, connect.NewRequest(&hyperctlv1.HealthRequest{}))
	if err != nil || h.Msg.Sessions != 1 {
		t.Fatalf("health over gRPC: %v %v", h, err)
	}
	if _, err := c.GetSession(ctx, connect.NewRequest(&hyperctlv1.GetSessionRequest{SessionId: "nope"})); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("an error over gRPC (its code is a trailer): %v", err)
	}
}
