package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/configs/rundir"
	_ "github.com/hyperctl/hyperctl/envs/all" // reacher
	"github.com/hyperctl/hyperctl/experiment/matrix"
	"github.com/hyperctl/hyperctl/experiment/run"
	"github.com/hyperctl/hyperctl/ppo"
)

// chromiumPath is Debian's chromium, which scripts/setup.sh installs.
const chromiumPath = "/usr/bin/chromium"

// tinyRun is a run of a few seconds: Reacher, 200 frames an iteration, one
// epoch; the controller and its tuned keys are appended.
const tinyRun = `env = "reacher"
iterations = 10
eval_every = 2
checkpoint_every = 5

[ppo]
num_envs = 2
batch_size = 200
minibatch_size = 100
epochs = 1
threads = 1
`

// gate is a training Monitor that holds training after the iterations in
// at until the test lets it go: the page is then looked at with a known
// number of rows written.
type gate struct {
	at      map[int]chan struct{} // rows written → closed to go on
	reached chan int
}

func newGate(rows ...int) *gate {
	g := &gate{at: map[int]chan struct{}{}, reached: make(chan int, len(rows))}
	for _, r := range rows {
		g.at[r] = make(chan struct{})
	}
	return g
}

func (g *gate) Start(int, int, int64, int64) {}
func (g *gate) Finish()                      {}
func (g *gate) Iteration(p rundir.Progress, _ ppo.Report) {
	if ch, ok := g.at[p.Iteration]; ok {
		g.reached <- p.Iteration
		<-ch
	}
}

// TestDashboardInBrowser loads the page in headless Chromium while a run
// trains: a compare folder (reacher × fixed, random, hypercontroller with a
// long preset name × seed 0) whose fixed run finished, whose random run
// trains in this process (held after 3, then 6 of its 10 iterations), and
// whose hypercontroller run never started. The page must name the runs with
// their states (a name cut off for want of room whole in its title, shown
// on hover), show the matrix as a grid, draw exactly the rows written, and
// draw the new ones without reloading; once the run ends, show it finished.
func TestDashboardInBrowser(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("skipped: no browser at %s (scripts/setup.sh installs Debian's chromium; `make test` runs it first)", chromiumPath)
	}
	root := t.TempDir()
	const long = "hypercontroller@a-preset-with-a-long-name" // never started: the preset need not exist
	man := matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"fixed", "random", long}, Seeds: []int64{0}, Iterations: 10}
	b, _ := json.Marshal(man)
	if err := os.WriteFile(filepath.Join(root, matrix.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	parse := func(text string) *configs.Plan {
		t.Helper()
		r, err := configs.Parse("tiny.toml", text)
		if err != nil {
			t.Fatal(err)
		}
		p, err := r.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	fixedDir := filepath.Join(root, "reacher", "fixed", "seed0")
	if _, err := run.Train(context.Background(), parse(tinyRun+"\n[controller]\nname = \"fixed\"\n"), run.Options{Out: fixedDir, Log: zerolog.Nop()}); err != nil {
		t.Fatal(err)
	}
	const fixedRows, fixedEvals = 10, 5

	// The random run, held after rows 3 and 6.
	randomRun := parse(tinyRun + `
[controller]
name = "random"
interval = 2

[[controller.tune]]
name = "batch_size"
low = 100.0
high = 300.0

[[controller.tune]]
name = "lr"
low = 1e-4
high = 1e-3
`)
	g := newGate(3, 6)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var trainErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, trainErr = run.Train(ctx, randomRun, run.Options{Out: filepath.Join(root, "reacher", "random", "seed0"), Log: zerolog.Nop(), Monitor: g})
	}()
	var releaseOnce [2]sync.Once
	release := func(i, rows int) { releaseOnce[i].Do(func() { close(g.at[rows]) }) }
	t.Cleanup(func() { // also when the test fails half-way
		cancel()
		release(0, 3)
		release(1, 6)
		wg.Wait()
	})
	waitGate := func(rows int) {
		t.Helper()
		select {
		case got := <-g.reached:
			if got != rows {
				t.Fatalf("training held after %d rows, want %d", got, rows)
			}
		case <-time.After(3 * time.Minute): // a safety net: 10 tiny iterations take seconds
			t.Fatalf("training did not reach row %d", rows)
		}
	}
	waitGate(3)

	src, err := NewRuns(root, RunsOptions{Poll: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Handler(src, Options{}))
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true))
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer func() { // close the browser and wait for its processes to end
		cctx, ccancel := context.WithTimeout(bctx, 20*time.Second)
		defer ccancel()
		_ = chromedp.Cancel(cctx)
		bcancel()
	}()
	bctx, tcancel := context.WithTimeout(bctx, 5*time.Minute) // a safety net
	defer tcancel()

	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(srv.URL+"/#group=reacher")); err != nil {
		t.Fatal(err)
	}
	// Mark the page: a reload would lose the mark.
	if _, err := chromedp.Run(bctx, chromedp.Evaluate[string](`window.__hyperctlMark = "kept"`)); err != nil {
		t.Fatal(err)
	}

	// Rows: the fixed run's 10 and the random run's written ones.
	want1 := pageWant{points: fixedRows + 3, evalPoints: fixedEvals + 1, randomState: "running"}
	p1 := waitPage(t, bctx, "the page with 3 rows of the running run", want1)
	for _, id := range []string{"reacher/fixed/seed0", "reacher/random/seed0", "reacher/" + long + "/seed0"} {
		if _, ok := p1.Runs[id]; !ok {
			t.Errorf("the runs table lacks %s: %v", id, p1.Runs)
		}
	}
	if p1.Runs["reacher/fixed/seed0"] != "finished" || p1.Runs["reacher/"+long+"/seed0"] != "missing" {
		t.Errorf("states %v; want fixed finished, hypercontroller missing", p1.Runs)
	}
	if !strings.Contains(p1.Names, "seed 0 · random") || !strings.Contains(p1.Names, "seed 0 · fixed") {
		t.Errorf("run names %q; want \"seed 0 · random\" and \"seed 0 · fixed\"", p1.Names)
	}
	// A name cut off for want of room is whole in its title, shown on hover.
	if len(p1.Cut) > 0 {
		t.Errorf("names whose title does not hold them whole: %q", p1.Cut)
	}
	if !strings.Contains(p1.Titles, "seed 0 · "+long) {
		t.Errorf("no title holds the whole name %q: %q", "seed 0 · "+long, p1.Titles)
	}
	if strings.Join(p1.Cells, " ") != "finished running missing" {
		t.Errorf("matrix cells %v; want finished running missing (fixed, random, hypercontroller)", p1.Cells)
	}
	// Every hyperparameter train.csv logs has a chart with every row.
	for _, h := range []string{"batch_size", "clip", "gae_lambda", "lr"} {
		if p1.Charts[h] != fixedRows+3 {
			t.Errorf("chart %s: %d points, want %d (charts %v)", h, p1.Charts[h], fixedRows+3, p1.Charts)
		}
	}

	// Three more rows: drawn without reloading the page.
	release(0, 3)
	waitGate(6)
	p2 := waitPage(t, bctx, "the page with 6 rows of the running run", pageWant{points: fixedRows + 6, evalPoints: fixedEvals + 3, randomState: "running"})
	if p2.Mark != "kept" {
		t.Fatalf("the page was reloaded (its mark is %q)", p2.Mark)
	}
	if p2.Ticks <= p1.Ticks {
		t.Errorf("updates %d then %d; want more", p1.Ticks, p2.Ticks)
	}
	t.Logf("train_reward points: %d, then %d after 3 more rows, without a reload (%d updates)", p1.Points, p2.Points, p2.Ticks)
	shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(shot, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("the screenshot is not a PNG (%d bytes)", len(shot))
	}
	path := filepath.Join(t.ArtifactDir(), "dashboard-live.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes; keep it with go test -artifacts)", path, len(shot))

	// The end: every row, and the run finished.
	release(1, 6)
	wg.Wait()
	if trainErr != nil {
		t.Fatal(trainErr)
	}
	p3 := waitPage(t, bctx, "the finished run", pageWant{points: fixedRows + 10, evalPoints: fixedEvals + 5, randomState: "finished"})
	if p3.Mark != "kept" || strings.Join(p3.Cells, " ") != "finished finished missing" {
		t.Errorf("after the end: mark %q, cells %v", p3.Mark, p3.Cells)
	}
	if sw := swatches(t, bctx); len(sw) != 3 || sw[0] == sw[1] || sw[1] == sw[2] || sw[0] == sw[2] {
		t.Errorf("three controllers: swatches %v; want three colours", sw)
	}

	// One controller's seeds (as a population's members): a colour per run.
	one := t.TempDir()
	man = matrix.Manifest{Envs: []string{"reacher"}, Controllers: []string{"fixed"}, Seeds: []int64{0, 1}, Iterations: 10}
	b, _ = json.Marshal(man)
	if err := os.WriteFile(filepath.Join(one, matrix.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, seed := range []string{"seed0", "seed1"} {
		if err := rundir.CopyRun(fixedDir, filepath.Join(one, "reacher", "fixed", seed)); err != nil {
			t.Fatal(err)
		}
	}
	src1, err := NewRuns(one, RunsOptions{Poll: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv1 := httptest.NewServer(Handler(src1, Options{}))
	defer srv1.Close()
	if err := chromedp.Do(bctx, chromedp.Navigate(srv1.URL+"/#group=reacher")); err != nil {
		t.Fatal(err)
	}
	var sw []string
	for i := 0; i < 300 && len(sw) != 2; i++ {
		time.Sleep(100 * time.Millisecond)
		sw = swatches(t, bctx)
	}
	legend, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById('legend').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if len(sw) != 2 || sw[0] == sw[1] || !strings.Contains(legend, "2 runs, a colour each") {
		t.Errorf("one controller, two seeds: swatches %v, legend %q; want two colours and \"2 runs, a colour each\"", sw, legend)
	}

	// Two of train's runs of one config (the second in its -run2 folder,
	// stopped): named by their folders, whole, as controller and seed do
	// not tell them apart, in status's words (stopped, not missing), in the
	// table and in the header's counts.
	two := t.TempDir()
	names := []string{"reacher-fixed-seed0", "reacher-fixed-seed0-run2"}
	for _, n := range names {
		if err := rundir.CopyRun(fixedDir, filepath.Join(two, n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(two, names[1], rundir.SummaryFile)); err != nil {
		t.Fatal(err)
	}
	src2, err := NewRuns(two, RunsOptions{Poll: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewServer(Handler(src2, Options{}))
	defer srv2.Close()
	if err := chromedp.Do(bctx, chromedp.Navigate(srv2.URL+"/#group=reacher")); err != nil {
		t.Fatal(err)
	}
	var p4 page
	for i := 0; i < 300 && len(p4.Runs) != 2; i++ {
		time.Sleep(100 * time.Millisecond)
		s, err := chromedp.Run(bctx, chromedp.Evaluate[string](readPage))
		if err != nil {
			t.Fatal(err)
		}
		p4 = page{}
		if err := json.Unmarshal([]byte(s), &p4); err != nil {
			t.Fatalf("%v in %s", err, s)
		}
	}
	if p4.Runs[names[0]] != "finished" || p4.Runs[names[1]] != "stopped" {
		t.Errorf("two runs of one config: states %v; want %s finished and %s stopped", p4.Runs, names[0], names[1])
	}
	for _, n := range names {
		if !strings.Contains("; "+p4.Names+";", "; "+n+" · fixed;") {
			t.Errorf("two runs of one config: names %q; want %q", p4.Names, n+" · fixed")
		}
	}
	if len(p4.Clipped) > 0 {
		t.Errorf("two runs of one config: the table cuts off %q, so they read alike", p4.Clipped)
	}
	if p4.Counts != "1 finished, 1 stopped" {
		t.Errorf("two runs of one config: the header counts %q, want \"1 finished, 1 stopped\"", p4.Counts)
	}
}

// swatches are the colours of the runs table's rows.
func swatches(t *testing.T, ctx context.Context) []string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify([...document.querySelectorAll('#runs td.name .swatch')].map(e => e.style.background))`))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	return out
}

// page is what the test reads from the page's DOM.
type page struct {
	Ticks  int               `json:"ticks"`  // the page's updates
	Mark   string            `json:"mark"`   // set by the test; a reload loses it
	Runs   map[string]string `json:"runs"`   // the runs table: id → state
	Names  string            `json:"names"`  // the runs table's names
	Cells  []string          `json:"cells"`  // the matrix's cells' states
	Points int               `json:"points"` // the training reward chart's points
	Evals  int               `json:"evals"`  // the evaluation chart's points
	Charts map[string]int    `json:"charts"` // every chart's points
	Titles string            `json:"titles"` // the runs table's names' titles
	Cut    []string          `json:"cut"`    // names the page may cut off whose title lacks them
	Counts string            `json:"counts"` // the header's count of runs per state
	// Clipped are the runs table's names the page shows cut off.
	Clipped []string `json:"clipped"`
}

const readPage = `JSON.stringify({
  ticks: +(document.body.dataset.ticks || 0),
  mark: window.__hyperctlMark || "",
  runs: Object.fromEntries([...document.querySelectorAll('#runs tbody tr')].map(tr => [tr.dataset.id, tr.dataset.state])),
  names: [...document.querySelectorAll('#runs td.name')].map(td => td.textContent).join('; '),
  titles: [...document.querySelectorAll('#runs td.name')].map(td => td.title).join('; '),
  counts: [...document.querySelectorAll('#counts .badge')].map(b => b.textContent).join(', '),
  clipped: [...document.querySelectorAll('#runs td.name')].filter(td => td.scrollWidth > td.clientWidth).map(td => td.textContent),
  cut: [...document.querySelectorAll('#runs td.name, .matrix th.ctrl, .matrix th.env')].filter(e => !(e.title || '').includes(e.textContent.trim())).map(e => e.textContent.trim()),
  cells: [...document.querySelectorAll('.matrix .cell')].map(c => c.className.replace('cell s-', '')),
  points: +((document.getElementById('chart-train_reward') || {dataset: {}}).dataset.points || 0),
  evals: +((document.getElementById('chart-eval_return') || {dataset: {}}).dataset.points || 0),
  charts: Object.fromEntries([...document.querySelectorAll('.chart')].map(c => [c.id.replace('chart-', ''), +(c.dataset.points || 0)])),
})`

type pageWant struct {
	points, evalPoints int
	randomState        string
}

// waitPage reads the page until it shows want, at most 300 reads 100 ms
// apart (the page updates every 300 ms), and fails with the last read.
func waitPage(t *testing.T, ctx context.Context, what string, want pageWant) page {
	t.Helper()
	var p page
	for i := 0; i < 300; i++ {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](readPage))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		p = page{}
		if err := json.Unmarshal([]byte(s), &p); err != nil {
			t.Fatalf("%s: %v in %s", what, err, s)
		}
		if p.Points == want.points && p.Evals == want.evalPoints && p.Runs["reacher/random/seed0"] == want.randomState {
			return p
		}
		if p.Points > want.points {
			t.Fatalf("%s: the chart has %d points, more than the %d rows written", what, p.Points, want.points)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: after 300 reads the page shows %+v; want %d reward points, %d evaluation points, random %s", what, p, want.points, want.evalPoints, want.randomState)
	return p
}
