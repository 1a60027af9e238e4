package service

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/controller"
	"github.com/hyperctl/hyperctl/controller/service/internal/statepb"
	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
)

// restorePanics is a test-only method whose UnmarshalBinary panics: a state
// file that makes a method panic must quarantine its session, not stop the
// server.
type restorePanics struct{ panicMethod }

func (m *restorePanics) UnmarshalBinary([]byte) error { panic("restore exploded") }

type restorePanicsSettings struct{}

func (restorePanicsSettings) Validate() error                 { return nil }
func (restorePanicsSettings) New() (controller.Method, error) { return &restorePanics{}, nil }

func init() {
	controller.MustRegister(controller.Entry{Name: "test-restorepanic", Summary: "test only", Defaults: func() controller.Settings { return &restorePanicsSettings{} }})
}

// A session whose files cannot be restored is quarantined at start: the
// server starts, logs it with the file and the reason, serves every other
// session, answers the quarantined one's RPCs with FAILED_PRECONDITION
// naming it, lists it with its failure, and lets DeleteSession remove it.
func TestQuarantinedSessions(t *testing.T) {
	dir := t.TempDir()
	s := newTestServer(t, dir, func(o *Options) { o.SnapshotEvery = 1000 })
	ctx := context.Background()
	defs := map[string]*hyperctlv1.CreateSessionRequest{
		"good":     {SessionId: "good", Space: twoParams(), Method: "neuralbo", Settings: mustStruct(t, map[string]any{"width": 8})},
		"badsnap":  {SessionId: "badsnap", Space: twoParams(), Method: "neuralbo", Settings: mustStruct(t, map[string]any{"width": 8})},
		"badlog":   {SessionId: "badlog", Space: twoParams()},
		"panics":   {SessionId: "panics", Space: []*hyperctlv1.Param{{Name: "x", Low: 0, High: 1}}, Method: "test-restorepanic"},
		"badspace": {SessionId: "badspace", Space: twoParams()},
	}
	for id, def := range defs {
		if _, _, err := s.Create(ctx, def); err != nil {
			t.Fatal(err)
		}
		driveDirect(t, s, id, 0, 6, rand.New(rand.NewPCG(1, 2)))
	}
	if err := s.Close(); err != nil { // final snapshots
		t.Fatal(err)
	}
	sdir := func(id string) string { return filepath.Join(dir, sessionsDir, id) }
	// badsnap: a well-framed snapshot whose controller state its method
	// refuses (as a neuralbo state with infinities was).
	if err := (&sessionFiles{dir: sdir("badsnap")}).writeSnapshot(&statepb.Snapshot{Iteration: 6, Controller: []byte("not a controller")}); err != nil {
		t.Fatal(err)
	}
	// badlog: a damaged record in the middle of the log.
	p := filepath.Join(sdir("badlog"), logName)
	os.Remove(filepath.Join(sdir("badlog"), snapName))
	b, _ := os.ReadFile(p)
	b[headerLen+30] ^= 0xff
	if err := os.WriteFile(p, b, fileMode); err != nil {
		t.Fatal(err)
	}
	// badspace: a definition this version refuses (a span that overflows),
	// written as an older version could have.
	os.Remove(filepath.Join(sdir("badspace"), snapName))
	bad := &hyperctlv1.CreateSessionRequest{SessionId: "badspace", Space: []*hyperctlv1.Param{{Name: "x", Low: -1e308, High: 1e308}}, Method: "neuralbo"}
	os.RemoveAll(sdir("badspace"))
	if _, err := createSessionFiles(filepath.Join(dir, sessionsDir), "badspace", &statepb.Created{Spec: bad, Created: "2026-01-01T00:00:00Z"}, logChunk, true); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // the file each failure must name
		"badsnap":  filepath.Join(sdir("badsnap"), snapName),
		"badlog":   p,
		"panics":   sdir("panics"),
		"badspace": filepath.Join(sdir("badspace"), logName),
	}
	reasons := map[string]string{"badsnap": "restore", "badlog": "intact record follows", "panics": "restore exploded", "badspace": "span"}

	states, err := Check(dir, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range states {
		if (st.Failure == "") != (st.ID == "good") || st.File != want[st.ID] || !strings.Contains(st.Failure, reasons[st.ID]) {
			t.Errorf("check: %+v; want file %q and a reason with %q", st, want[st.ID], reasons[st.ID])
		}
	}
	if len(states) != len(defs) {
		t.Fatalf("check reported %d sessions, want %d", len(states), len(defs))
	}

	var logs syncBuffer
	s = newTestServer(t, dir, func(o *Options) { o.Log = zerolog.New(&logs) })
	defer s.Close()
	c := client(t, s, HandlerOptions{})
	for id, file := range want {
		if !strings.Contains(logs.String(), `"session":"`+id+`","file":"`+file+`"`) {
			t.Errorf("session %s: not logged with its file %s: %s", id, file, logs.String())
		}
		_, err := c.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: id}))
		if codeOf(err) != connect.CodeFailedPrecondition || !strings.Contains(err.Error(), `session "`+id+`" is quarantined`) || !strings.Contains(err.Error(), file) {
			t.Errorf("suggest %s: %v; want FAILED_PRECONDITION naming it and %s", id, err, file)
		}
		_, err = c.Observe(ctx, connect.NewRequest(&hyperctlv1.ObserveRequest{SessionId: id, Iteration: 6, Reward: 1}))
		if codeOf(err) != connect.CodeFailedPrecondition {
			t.Errorf("observe %s: %v", id, err)
		}
		_, err = c.GetSession(ctx, connect.NewRequest(&hyperctlv1.GetSessionRequest{SessionId: id}))
		if codeOf(err) != connect.CodeFailedPrecondition {
			t.Errorf("get %s: %v", id, err)
		}
	}
	if _, err := c.CreateSession(ctx, connect.NewRequest(defs["badlog"])); codeOf(err) != connect.CodeFailedPrecondition {
		t.Errorf("create over a quarantined id: %v", err)
	}
	// The others are served, exactly where they were.
	sg, err := c.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: "good"}))
	if err != nil || sg.Msg.Iteration != 6 {
		t.Fatalf("good: %v %v", sg, err)
	}
	h, err := c.Health(ctx, connect.NewRequest(&hyperctlv1.HealthRequest{}))
	if err != nil || h.Msg.Sessions != 5 || h.Msg.Quarantined != 4 {
		t.Fatalf("health: %v %v", h, err)
	}
	l, err := c.ListSessions(ctx, connect.NewRequest(&hyperctlv1.ListSessionsRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, ss := range l.Msg.Sessions {
		if (ss.Failure == "") != (ss.Id == "good") || (ss.Id == "badsnap" && ss.Method != "neuralbo") {
			t.Errorf("list: %v", ss)
		}
	}
	// Nothing was changed on disk; DeleteSession removes a quarantined one.
	if got, _ := os.ReadFile(p); !bytes.Equal(got, b) {
		t.Fatal("the damaged log was changed")
	}
	if _, err := c.DeleteSession(ctx, connect.NewRequest(&hyperctlv1.DeleteSessionRequest{SessionId: "badlog"})); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sdir("badlog")); !os.IsNotExist(err) {
		t.Fatalf("deleted quarantined session's folder: %v", err)
	}
	if _, err := c.CreateSession(ctx, connect.NewRequest(defs["badlog"])); err != nil {
		t.Fatalf("create after deleting the quarantined session: %v", err)
	}
}
