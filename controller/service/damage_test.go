package service

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"github.com/rs/zerolog"
	"google.golang.org/protobuf/proto"

	hyperctlv1 "github.com/hyperctl/hyperctl/controller/service/proto/hyperctl/v1"
)

// damageFixture is a state folder with two sessions driven alike: "s", the
// one a test damages, and "ok", which must be served whatever happens to s.
type damageFixture struct {
	dir     string // the state folder, to be copied per case
	n       int    // observations acknowledged in each session
	log     []byte // s's log as written
	frames  []frame
	history []*hyperctlv1.Observation // s's acknowledged observations
}

// last is the frame of s's last record (iteration n-1).
func (fx *damageFixture) last() frame { return fx.frames[len(fx.frames)-1] }

// lastEnd is the end of s's last record.
func (fx *damageFixture) lastEnd() int {
	return int(fx.last().off) + frameHeaderLen + len(fx.last().payload)
}

// sectorIn is the first sector boundary inside s's last record (the
// fixture makes its last record cross one).
func (fx *damageFixture) sectorIn() int { return (fx.lastEnd() - 1) / sectorSize * sectorSize }

// newDamageServer is a server on a new state folder with the serve
// defaults (64 KiB log chunks, no snapshot before the stop) and the
// sessions "s" and "ok".
func newDamageServer(t *testing.T) (string, *Server) {
	t.Helper()
	dir := t.TempDir()
	s := newTestServer(t, dir, func(o *Options) { o.logChunk, o.SnapshotEvery, o.KeepAwake = logChunk, 1000, -1 })
	for _, id := range []string{"s", "ok"} {
		if _, _, err := s.Create(context.Background(), &hyperctlv1.CreateSessionRequest{SessionId: id, Space: twoParams(), Seed: 5}); err != nil {
			t.Fatal(err)
		}
	}
	return dir, s
}

// newDamageFixture drives s and ok (the serve defaults: 64 KiB log chunks,
// no snapshot before the stop) until at least 10 observations are
// acknowledged and s's last record crosses a sector boundary, so that a
// torn write can lose one of its sectors. Then it stops the server: with a
// clean stop (a final snapshot) or as kill -9 would.
func newDamageFixture(t *testing.T, clean bool) *damageFixture {
	t.Helper()
	dir, s := newDamageServer(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	n := 0
	for ; n < 200; n++ {
		sf := s.sessions["s"].files
		if n >= 10 && sf.offsets[n-1]/sectorSize != (sf.size-1)/sectorSize {
			break
		}
		driveDirect(t, s, "s", n, 1, rng)
		driveDirect(t, s, "ok", n, 1, rng)
	}
	h, err := s.Get(ctx, &hyperctlv1.GetSessionRequest{SessionId: "s", History: true})
	if err != nil || len(h.History) != n {
		t.Fatalf("history: %v %v", h, err)
	}
	if clean {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		crash(s)
	}
	fx := &damageFixture{dir: dir, n: n, history: h.History}
	p := filepath.Join(dir, sessionsDir, "s", logName)
	if fx.log, err = os.ReadFile(p); err != nil {
		t.Fatal(err)
	}
	var torn bool
	fx.frames, _, torn, err = readFrames(p, fx.log, headerLen)
	if err != nil || torn || len(fx.frames) != n+1 || fx.lastEnd()/sectorSize == int(fx.last().off)/sectorSize {
		t.Fatalf("fixture: %d records for %d observations, torn %v, %v", len(fx.frames), n, torn, err)
	}
	_, err = os.Stat(filepath.Join(dir, sessionsDir, "s", snapName))
	if clean != (err == nil) {
		t.Fatalf("fixture: clean stop %v, snapshot %v", clean, err)
	}
	return fx
}

// copyTree copies the state folder src to dst (os.CopyFS: files 0666, folders
// 0777, before the umask).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// hashFiles is the SHA-256 of every file under dir, by path, and the
// mode, size and modification time of each, so that a file rewritten with
// the same bytes counts as changed too.
func hashFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[p] = fi.Mode().String()
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[p] = fmt.Sprintf("%s %s %d %d", hex.EncodeToString(sum[:]), fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// outcome is what serve does with a damaged session.
type outcome int

const (
	// served: the log is served whole, nothing changed.
	served outcome = iota
	// cutTorn: a torn last record is cut (with a warning) and the session
	// is served with the iterations before it.
	cutTorn
	// quarantined: the session is quarantined and none of its files
	// changes; the other session is served.
	quarantined
)

func (o outcome) String() string { return [...]string{"served", "cut", "quarantined"}[o] }

// checkOutcome runs --check (Check) and then a server on a copy of the
// fixture whose log of s is replaced by log, and checks that both do what
// want says, that the session "ok" is served throughout, and that a served
// s holds exactly its acknowledged observations before iteration iters.
func checkOutcome(t *testing.T, fx *damageFixture, log []byte, want outcome, iters int) {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, fx.dir, dir)
	sdir := filepath.Join(dir, sessionsDir, "s")
	logPath := filepath.Join(sdir, logName)
	if err := os.WriteFile(logPath, log, fileMode); err != nil {
		t.Fatal(err)
	}
	before := hashFiles(t, sdir)

	var checkLogs syncBuffer
	states, err := Check(dir, zerolog.New(&checkLogs))
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if len(states) != 2 || states[0].ID != "ok" || states[0].Failure != "" || states[0].Iteration != fx.n || states[1].ID != "s" {
		t.Fatalf("check: %+v", states)
	}
	if st := states[1]; (st.Failure != "") != (want == quarantined) || (want != quarantined && st.Iteration != iters) {
		t.Fatalf("check reported %+v, want %v with %d iterations", st, want, iters)
	}
	if got := hashFiles(t, sdir); !sameFiles(got, before) {
		t.Fatal("check changed the session's files")
	}

	var logs syncBuffer
	s, err := New(Options{StateDir: dir, Log: zerolog.New(&logs), SnapshotEvery: 1000, KeepAwake: -1})
	if err != nil {
		t.Fatalf("the server did not start: %v", err)
	}
	ctx := context.Background()
	if g, err := s.Get(ctx, &hyperctlv1.GetSessionRequest{SessionId: "ok"}); err != nil || int(g.Session.Iteration) != fx.n {
		t.Fatalf("the undamaged session: %v %v", g, err)
	}
	g, err := s.Get(ctx, &hyperctlv1.GetSessionRequest{SessionId: "s", History: true})
	if want == quarantined {
		var q *errQuarantined
		if !errors.As(err, &q) || !strings.HasPrefix(q.file, sdir) || !strings.Contains(logs.String(), "quarantined") {
			t.Fatalf("session s: %v; want it quarantined naming one of its files (logs %s)", err, logs.String())
		}
		if _, err := s.Observe(ctx, &hyperctlv1.ObserveRequest{SessionId: "s", Iteration: int32(fx.n), Reward: 1}); !errors.As(err, &q) {
			t.Fatalf("observe on the quarantined session: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if got := hashFiles(t, sdir); !sameFiles(got, before) {
			t.Fatal("the quarantined session's files were changed")
		}
		return
	}
	if err != nil || int(g.Session.Iteration) != iters || len(g.History) != iters {
		t.Fatalf("session s: %v %v; want %d iterations", g, err, iters)
	}
	for i, o := range g.History {
		if !proto.Equal(o, fx.history[i]) {
			t.Fatalf("iteration %d served as %v, acknowledged as %v", i, o, fx.history[i])
		}
	}
	if torn := strings.Contains(logs.String(), "torn"); torn != (want == cutTorn) {
		t.Fatalf("a torn-record warning %v, want %v: %s", torn, want == cutTorn, logs.String())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if want == cutTorn {
		// Cut at the torn record, and nothing before it changed.
		if end := int(fx.frames[iters+1].off); len(got) != end || !bytes.Equal(got, log[:end]) {
			t.Fatalf("log cut to %d bytes, want the %d before the torn record", len(got), end)
		}
	} else if !bytes.Equal(got, log) {
		t.Fatal("a served log was changed")
	}
	// The session goes on from there.
	s = newTestServer(t, dir, func(o *Options) { o.KeepAwake = -1 })
	defer s.Close()
	driveDirect(t, s, "s", iters, 2, rand.New(rand.NewPCG(9, 9)))
}

// flipped returns a copy of b with b[i] xor mask.
func flipped(b []byte, i int, mask byte) []byte {
	c := bytes.Clone(b)
	c[i] ^= mask
	return c
}

// zeroed returns a copy of b with [from, to) zeroed, as a write that never
// reached the disk leaves the preallocated space.
func zeroed(b []byte, from, to int) []byte {
	c := bytes.Clone(b)
	clear(c[from:to])
	return c
}

// Fault injection (issue 40, point 5): a byte of a session log flipped
// (three masks) at each position class of the last record (length,
// checksum, payload) and of records before it, and the log cut short or
// left with zeroed sectors. serve follows etcd's rule: only a torn last
// record (the file ends inside it) is cut; any other damage (zeroed
// sectors of a record the file holds whole included) quarantines the session,
// whose files then stay as they are, while the other session is served;
// a damaged record is never served.
func TestDamagedLogFaultInjection(t *testing.T) {
	fx := newDamageFixture(t, false)
	last, mid := fx.last(), fx.frames[len(fx.frames)/2]
	off, p := int(last.off), len(last.payload)
	type tc struct {
		name string
		log  []byte
		want outcome
	}
	var cases []tc
	positions := []struct {
		class string
		at    int
	}{
		{"last/length byte 0", off}, {"last/length byte 1", off + 1}, {"last/length byte 2", off + 2}, {"last/length byte 3", off + 3},
		{"last/checksum byte 0", off + 4}, {"last/checksum byte 3", off + 7},
		{"last/payload first", off + frameHeaderLen}, {"last/payload middle", off + frameHeaderLen + p/2}, {"last/payload last", off + frameHeaderLen + p - 1},
		{"middle/length", int(mid.off)}, {"middle/checksum", int(mid.off) + 5}, {"middle/payload", int(mid.off) + frameHeaderLen + len(mid.payload)/2},
		{"creation/payload", headerLen + frameHeaderLen + 3},
	}
	for _, pos := range positions {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			cases = append(cases, tc{fmt.Sprintf("%s^%#02x", pos.class, mask), flipped(fx.log, pos.at, mask), quarantined})
		}
	}
	end := fx.lastEnd()
	cases = append(cases,
		tc{"short/inside the header", fx.log[:off+3], cutTorn},
		tc{"short/only the header", fx.log[:off+frameHeaderLen], cutTorn},
		tc{"short/inside the payload", fx.log[:off+frameHeaderLen+p/2], cutTorn},
		tc{"short/one byte short", fx.log[:end-1], cutTorn},
		// A sector of the record lost in the preallocated zeros: the
		// file holds every byte the length field gives, so the record
		// is complete and damaged, whatever its bytes are.
		tc{"zero sector/the record's last", zeroed(fx.log, fx.sectorIn(), end), quarantined},
		tc{"zero sector/the record's first", zeroed(fx.log, off, fx.sectorIn()), quarantined},
		tc{"zeros inside a sector/payload tail", zeroed(fx.log, end-3, end), quarantined},
		tc{"zeros inside a written sector/header", zeroed(fx.log, off, off+frameHeaderLen), quarantined},
		tc{"intact", fx.log, served},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			iters := fx.n
			if c.want == cutTorn {
				iters = fx.n - 1
			}
			checkOutcome(t, fx, c.log, c.want, iters)
		})
	}
}

// Issue 40, point 7: after a clean stop (a snapshot of the last
// iteration), a log that lost or damaged its last record cannot be cut to
// match: the snapshot is ahead of it. The session is quarantined and
// neither its log nor its snapshot changes.
func TestDamageAfterCleanStopQuarantines(t *testing.T) {
	fx := newDamageFixture(t, true)
	off, end := int(fx.last().off), fx.lastEnd()
	for _, c := range []struct {
		name string
		log  []byte
	}{
		{"one bit of the last record's payload", flipped(fx.log, off+frameHeaderLen+3, 0x04)},
		{"one bit of the last record's length", flipped(fx.log, off, 0x01)},
		{"file ends inside the last record", fx.log[:end-5]},
		{"zeroed last sector", zeroed(fx.log, fx.sectorIn(), end)},
		{"log cut at a record boundary", fx.log[:off]},
	} {
		t.Run(c.name, func(t *testing.T) { checkOutcome(t, fx, c.log, quarantined, 0) })
	}
}

// Issue 40, point 5: a log that lost its last records whole (cut at a
// record boundary, after kill -9 and before any snapshot) looks like a
// shorter log: no log can tell without a durable high-water mark, so
// --check says ok and the session is served from the last record left. A
// client that was acknowledged the lost iterations sees an iteration gap on
// its next request, naming the session's next iteration; Suggest then
// gives, for each lost iteration, the configuration it gave before, so the
// client can report those iterations again and go on.
func TestLostTailIsAnIterationGap(t *testing.T) {
	fx := newDamageFixture(t, false)
	lost := fx.frames[len(fx.frames)-2] // the last two records
	kept := fx.n - 2
	for _, log := range [][]byte{fx.log[:lost.off], zeroed(fx.log, int(lost.off), fx.lastEnd())} {
		checkOutcome(t, fx, log, served, kept)
	}
	dir := t.TempDir()
	copyTree(t, fx.dir, dir)
	if err := os.WriteFile(filepath.Join(dir, sessionsDir, "s", logName), fx.log[:lost.off], fileMode); err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, dir, func(o *Options) { o.KeepAwake = -1 })
	defer s.Close()
	c := client(t, s, HandlerOptions{})
	ctx := context.Background()
	next := fmt.Sprintf("next iteration is %d", kept)
	for _, r := range []struct {
		name string
		call func() error
		msg  string
	}{
		{"the client's next observation", func() error {
			_, err := c.Observe(ctx, connect.NewRequest(&hyperctlv1.ObserveRequest{SessionId: "s", Iteration: int32(fx.n), Reward: 1}))
			return err
		}, "skips ahead"},
		{"a retry of the last acknowledged one", func() error {
			_, err := c.Observe(ctx, connect.NewRequest(&hyperctlv1.ObserveRequest{SessionId: "s", Iteration: int32(fx.n - 1), Reward: fx.history[fx.n-1].Reward}))
			return err
		}, "skips ahead"},
		{"a suggestion for the client's next iteration", func() error {
			it := int32(fx.n)
			_, err := c.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: "s", Iteration: &it}))
			return err
		}, "Suggest for iteration"},
	} {
		err := r.call()
		if codeOf(err) != connect.CodeFailedPrecondition || !strings.Contains(err.Error(), r.msg) || !strings.Contains(err.Error(), next) {
			t.Errorf("%s: %v; want FAILED_PRECONDITION with %q and %q", r.name, err, r.msg, next)
		}
	}
	// Nothing was applied; the session suggests, for each lost iteration,
	// the configuration the client was given for it, so the client can
	// report its results again and go on.
	for it := kept; it < fx.n; it++ {
		want := fx.history[it]
		sg, err := c.Suggest(ctx, connect.NewRequest(&hyperctlv1.SuggestRequest{SessionId: "s"}))
		if err != nil || int(sg.Msg.Iteration) != it || !slices.Equal(sg.Msg.Values, want.Config) {
			t.Fatalf("suggest after the gap: %v %v; want iteration %d with %v", sg, err, it, want.Config)
		}
		if _, err := c.Observe(ctx, connect.NewRequest(&hyperctlv1.ObserveRequest{SessionId: "s", Iteration: want.Iteration, Reward: want.Reward, Frames: want.Frames, ElapsedSeconds: want.ElapsedSeconds})); err != nil {
			t.Fatal(err)
		}
	}
	g, err := s.Get(ctx, &hyperctlv1.GetSessionRequest{SessionId: "s", History: true})
	if err != nil || int(g.Session.Iteration) != fx.n {
		t.Fatalf("after reporting the lost iterations again: %v %v", g, err)
	}
	for i, o := range g.History {
		if !proto.Equal(o, fx.history[i]) {
			t.Fatalf("iteration %d: %v, first acknowledged as %v", i, o, fx.history[i])
		}
	}
}

// newZeroFixture is a state folder like newDamageFixture's after kill -9,
// whose last record of s holds 130 episode returns of 0: its payload holds
// over 1,000 zero bytes, a whole 512-byte sector of them, though the record
// was written whole and acknowledged. rewardAt is the offset of that
// record's reward in the log.
func newZeroFixture(t *testing.T) (fx *damageFixture, rewardAt int) {
	t.Helper()
	dir, s := newDamageServer(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 10
	driveDirect(t, s, "s", 0, n-1, rng)
	driveDirect(t, s, "ok", 0, n, rng)
	if _, err := s.Suggest(ctx, "s", nil); err != nil {
		t.Fatal(err)
	}
	const r = -51.25
	if _, err := s.Observe(ctx, &hyperctlv1.ObserveRequest{SessionId: "s", Iteration: n - 1, Reward: r, Frames: 64, ElapsedSeconds: 0.01, Returns: make([]float64, 130)}); err != nil {
		t.Fatal(err)
	}
	h, err := s.Get(ctx, &hyperctlv1.GetSessionRequest{SessionId: "s", History: true})
	if err != nil || len(h.History) != n {
		t.Fatalf("history: %v %v", h, err)
	}
	crash(s)
	fx = &damageFixture{dir: dir, n: n, history: h.History}
	p := filepath.Join(dir, sessionsDir, "s", logName)
	if fx.log, err = os.ReadFile(p); err != nil {
		t.Fatal(err)
	}
	if fx.frames, _, _, err = readFrames(p, fx.log, headerLen); err != nil || len(fx.frames) < 2 {
		t.Fatalf("fixture: %d records, %v", len(fx.frames), err)
	}
	last := fx.last()
	if !zeroSector(fx.log, int(last.off), fx.lastEnd()) {
		t.Fatal("fixture: the last record holds no zero sector")
	}
	var bits [8]byte
	binary.LittleEndian.PutUint64(bits[:], math.Float64bits(r))
	i := bytes.Index(last.payload, bits[:])
	if i < 0 {
		t.Fatal("fixture: the reward is not in the last record")
	}
	return fx, int(last.off) + frameHeaderLen + i
}

// A complete, acknowledged record is never taken for a torn one because
// its payload holds zeros: the torn-tail rule reads the framing (the
// length field against the end of the file), not the bytes' values. The
// record whole is served; with a flipped bit in its reward it is damaged
// (its checksum fails, the file holds all of it), and the session is
// quarantined, by --check and by a restart alike.
func TestZerosInACompleteRecordAreNotATornWrite(t *testing.T) {
	fx, at := newZeroFixture(t)
	end, off := fx.lastEnd(), int(fx.last().off)
	for _, c := range []struct {
		name  string
		log   []byte
		want  outcome
		iters int
	}{
		{"intact", fx.log, served, fx.n},
		{"a flipped bit of its reward", flipped(fx.log, at+2, 0x10), quarantined, 0},
		{"a flipped bit of its last payload byte", flipped(fx.log, end-1, 0x01), quarantined, 0},
		{"its header zeroed", zeroed(fx.log, off, off+frameHeaderLen), quarantined, 0},
		{"cut short by the end of the file", fx.log[:end-1], cutTorn, fx.n - 1},
		{"cut inside its header", fx.log[:off+3], cutTorn, fx.n - 1},
	} {
		t.Run(c.name, func(t *testing.T) { checkOutcome(t, fx, c.log, c.want, c.iters) })
	}
}

// sectorSize is the smallest disk sector.
const sectorSize = 512

// zeroSector reports whether a sector-aligned piece of b[from:to] is all
// zeros.
func zeroSector(b []byte, from, to int) bool {
	for p := from; p < to; {
		end := min(to, (p/sectorSize+1)*sectorSize)
		if allZero(b[p:end]) {
			return true
		}
		p = end
	}
	return false
}
