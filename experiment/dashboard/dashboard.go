// Package dashboard is hyperctl's live web page: `hyperctl dashboard DIR`
// follows the training runs under a folder, and `hyperctl serve` shows its
// sessions the same way. One page lists the runs with their state and
// progress, draws their curves overlaid per environment and a compare's
// matrix as a grid, and polls the server so it follows the runs while they
// train, without reloading.
//
// The server side is a Source: Runs reads run folders (through package
// rundir, with the states `hyperctl status` decides, package slurm), Sessions
// reads a service's sessions (through their read-only accessors, List and
// Get). Handler serves the page, its assets (embedded: the page's own HTML,
// CSS and JavaScript, and the vendored charting library uPlot, see
// assets/uplot/VERSION.md) and two JSON endpoints:
//
//	GET /api/overview          the runs, their states and progress, the matrices, the charts
//	GET /api/series?id=RUN&from=N&eval_from=M
//	                           RUN's rows of train.csv from row N and of eval.csv from row M,
//	                           as columns (the x axis and one column per chart)
//
// The page asks for the overview every poll interval and, for the runs it
// draws whose row counts grew, for the new rows only.
package dashboard

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"
)

// Overview is what the page shows besides the curves: every run, its state
// and progress, the compare matrices, and which charts to draw.
type Overview struct {
	Kind  string `json:"kind"`  // "runs" or "sessions"
	Title string `json:"title"` // what is shown: the folder, or the service
	// Group names what Run.Env holds ("environment", or "space" for
	// sessions): the page overlays the runs of one group.
	Group    string   `json:"group"`
	X        Axis     `json:"x"`      // the curves' common x axis
	Charts   []Chart  `json:"charts"` // drawn for every group; hyperparameter charts follow, from the series' columns
	Runs     []Run    `json:"runs"`
	Matrices []Matrix `json:"matrices,omitempty"`
	// Problems are the folders or sessions that could not be read, each
	// with why; the rest is shown.
	Problems []string `json:"problems,omitempty"`
	PollMS   int64    `json:"poll_ms"` // how often the page asks again
	Updated  string   `json:"updated"` // when this overview was read (RFC 3339)
}

// Axis is a chart axis: the series column it reads and its label.
type Axis struct {
	Key   string `json:"key"`
	Label string `json:"label"`
}

// Chart is one chart of the page: a column of a run's train or eval table
// against the x axis.
type Chart struct {
	Key    string `json:"key"`    // the column
	Table  string `json:"table"`  // "train" or "eval"
	Title  string `json:"title"`  // above the chart
	Label  string `json:"label"`  // the y axis
	Points bool   `json:"points"` // draw points as well as lines (sparse series)
}

// Run is one run (or session) as the overview lists it.
type Run struct {
	ID         string `json:"id"`    // its folder relative to the dashboard's folder, slash-separated; a session's id
	Env        string `json:"env"`   // the group it is overlaid in (an environment, a session's space)
	Label      string `json:"label"` // the controller, as its curves' legend names it
	Seed       *int64 `json:"seed,omitempty"`
	Collection string `json:"collection,omitempty"` // the compare (or folder of runs) it belongs to, relative; "" for the top folder
	// Folder is the run's folder name when its collection, environment,
	// controller and seed do not tell it apart from another run (train's
	// -run2, -run3 … folders of one config): the page names it by that.
	Folder     string `json:"folder,omitempty"`
	State      string `json:"state"` // as `hyperctl status` says: a matrix's cell finished, pruned, running, pending, failed or missing; a run outside any matrix finished, running, pending or stopped
	Detail     string `json:"detail,omitempty"`
	Done       int    `json:"done"`                   // iterations done (rows of train.csv), observations of a session
	Iterations int    `json:"iterations,omitempty"`   // iterations planned (0: unknown)
	Frames     int64  `json:"frames"`                 // frames trained
	Budget     int64  `json:"frame_budget,omitempty"` // the frame budget (0: none)
	// Stamp changes whenever the run's tables are written: the page then
	// asks for their new rows.
	Stamp string `json:"stamp"`
	// Generation changes when the run starts over (a new config.toml, a
	// session re-created): the page then reads its rows again from the
	// start.
	Generation string `json:"generation,omitempty"`
}

// Matrix is a compare folder's matrix: env × controller × seed, each cell
// a run of Overview.Runs.
type Matrix struct {
	ID string `json:"id"` // the compare folder, relative ("" for the top folder)
	// Population is set when the folder is a population's: its members
	// are the cells (matrix.IsPopulation).
	Population  bool     `json:"population,omitempty"`
	Envs        []string `json:"envs"`
	Controllers []string `json:"controllers"`
	Seeds       []int64  `json:"seeds"`
	// Runs are the cells' run ids, env-major, then controller, then seed.
	Runs []string `json:"runs"`
	// QueueError is set when Slurm's queue could not be read: states then
	// come from the run folders alone.
	QueueError string `json:"queue_error,omitempty"`
}

// Series is part of one run's tables: its rows from From (train) and
// EvalFrom (eval) on, as columns keyed by name; NaN (JSON null) marks an
// empty field.
type Series struct {
	ID         string            `json:"id"`
	Generation string            `json:"generation,omitempty"`
	From       int               `json:"from"`
	EvalFrom   int               `json:"eval_from"`
	Train      map[string]Column `json:"train"`
	Eval       map[string]Column `json:"eval"`
	// Hyper lists the train columns that are hyperparameters, in the
	// table's order: each gets a chart.
	Hyper []string `json:"hyper"`
	// Rows and EvalRows are the tables' row counts when read; when more
	// rows than one reply holds are available, ask again from From + the
	// rows returned.
	Rows     int `json:"rows"`
	EvalRows int `json:"eval_rows"`
}

// Column is a column of numbers; NaN is written as JSON null.
type Column []float64

// MarshalJSON writes the numbers in their shortest form, NaN as null.
func (c Column) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(c)*8)
	b = append(b, '[')
	for i, v := range c {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return append(b, ']'), nil
}

// maxRowsPerReply bounds the rows of one /api/series reply (per table); the
// page asks again for the rest.
const maxRowsPerReply = 5000

// Source is what the page shows: runs under a folder, or a service's
// sessions.
type Source interface {
	// Overview lists the runs.
	Overview(ctx context.Context) (*Overview, error)
	// Series returns the run's rows from row from of its train table and
	// row evalFrom of its eval table, at most maxRows each. An unknown id
	// is a *RequestError.
	Series(ctx context.Context, id string, from, evalFrom, maxRows int) (*Series, error)
}

// RequestError is a bad request: a missing or malformed parameter, or an
// unknown run. The message names the parameter.
type RequestError struct {
	Status int // the HTTP status: 400, or 404 for an unknown run
	Field  string
	Msg    string
}

// Error names the field and says what is wrong with it.
func (e *RequestError) Error() string { return e.Field + ": " + e.Msg }

//go:embed assets
var assets embed.FS

// Options configure Handler.
type Options struct {
	// Token, when set, is required on every request (see RequireToken).
	Token string
	// WriteTimeout bounds the writing of one response (default 30 s), so a
	// client that stops reading holds nothing for long.
	WriteTimeout time.Duration
}

// Handler serves the page for src: "/" the page, "/assets/" its files,
// "/api/overview" and "/api/series". Only GET and HEAD are served. With
// Options.Token every request needs the token; without, only requests
// addressed to a loopback host are served (see RequireToken).
func Handler(src Source, o Options) http.Handler {
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, assets, "assets/index.html")
	})
	mux.Handle("GET /assets/", http.FileServerFS(assets))
	mux.HandleFunc("GET /api/overview", func(w http.ResponseWriter, r *http.Request) {
		ov, err := src.Overview(r.Context())
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, ov)
	})
	mux.HandleFunc("GET /api/series", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		id := q.Get("id")
		if id == "" {
			writeError(w, &RequestError{Status: http.StatusBadRequest, Field: "id", Msg: "missing: give the run's id from /api/overview"})
			return
		}
		from, err := rowParam(q.Get("from"), "from")
		if err != nil {
			writeError(w, err)
			return
		}
		evalFrom, err := rowParam(q.Get("eval_from"), "eval_from")
		if err != nil {
			writeError(w, err)
			return
		}
		s, err := src.Series(r.Context(), id, from, evalFrom, maxRowsPerReply)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, s)
	})
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(o.WriteTimeout))
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, fmt.Sprintf("method %s: the dashboard is read-only; use GET", r.Method), http.StatusMethodNotAllowed)
			return
		}
		mux.ServeHTTP(w, r)
	})
	return RequireToken(h, o.Token)
}

// rowParam parses a row index parameter (absent: 0).
func rowParam(v, name string) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, &RequestError{Status: http.StatusBadRequest, Field: name, Msg: fmt.Sprintf("want a row index >= 0, got %q", v)}
	}
	return n, nil
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := marshal(v)
	if err != nil {
		writeError(w, fmt.Errorf("encode reply: %w", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b)
}

// marshal encodes v as JSON without escaping <, > and & (the replies are
// never embedded in HTML), so messages read as written.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeError answers a request error with its status and other errors with
// 500, both as {"error": message}.
func writeError(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var re *RequestError
	if errors.As(err, &re) {
		status = re.Status
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	b, _ := marshal(map[string]string{"error": err.Error()})
	_, _ = w.Write(b)
}
