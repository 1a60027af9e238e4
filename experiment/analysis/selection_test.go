package analysis

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/experiment/matrix"
)

func TestSelect(t *testing.T) {
	dir := t.TempDir()
	for _, env := range []string{"reacher", "pusher"} {
		for _, ctrl := range []string{"fixed", "hoof"} {
			for _, seed := range []int{0, 1, 2} {
				writeTraceRun(t, filepath.Join(dir, env, ctrl, fmt.Sprintf("seed%d", seed)), []string{"lr"},
					map[string][]float64{"lr": {1, 2, 3, 4}}, "")
			}
		}
	}
	names := func(s *Set) string {
		var out []string
		for _, r := range s.Runs {
			out = append(out, fmt.Sprintf("%s/%s/%d", r.Env, r.Controller, r.Seed))
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name     string
		sel      Selection
		manifest bool
		want     string // the runs kept
		wantErr  string // else the error
	}{
		{name: "all", sel: Selection{}, want: "pusher/fixed/0 pusher/fixed/1 pusher/fixed/2 pusher/hoof/0 pusher/hoof/1 pusher/hoof/2 " +
			"reacher/fixed/0 reacher/fixed/1 reacher/fixed/2 reacher/hoof/0 reacher/hoof/1 reacher/hoof/2"},
		{name: "one env, one seed", sel: Selection{Envs: []string{"reacher"}, Seeds: []int64{2}}, want: "reacher/fixed/2 reacher/hoof/2"},
		{name: "controllers and seeds", sel: Selection{Controllers: []string{"hoof"}, Seeds: []int64{0, 1}}, want: "pusher/hoof/0 pusher/hoof/1 reacher/hoof/0 reacher/hoof/1"},
		{name: "manifest narrowed", manifest: true, sel: Selection{Envs: []string{"pusher"}, Controllers: []string{"fixed"}, Seeds: []int64{1}}, want: "pusher/fixed/1"},
		{name: "a seed of the manifest only", manifest: true, sel: Selection{Seeds: []int64{9}}, want: ""},
		{name: "unknown env", sel: Selection{Envs: []string{"pushr"}}, wantErr: "envs pushr: no such environment (did you mean pusher?); it has pusher, reacher"},
		{name: "unknown controller", sel: Selection{Controllers: []string{"pb2"}}, wantErr: "controllers pb2: no such controller; it has fixed, hoof"},
		{name: "unknown seed", sel: Selection{Seeds: []int64{0, 7}}, wantErr: "seeds 7: no such seed; it has 0, 1, 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tc.manifest {
				s.Manifest = &matrix.Manifest{Envs: []string{"pusher", "reacher"}, Controllers: []string{"fixed", "hoof"}, Seeds: []int64{0, 1, 2, 9}}
			}
			before := names(s)
			err = s.Select(tc.sel)
			if tc.wantErr != "" {
				var se *SelectionError
				if !errors.As(err, &se) || err.Error() != tc.wantErr {
					t.Fatalf("Select: error %v, want %q", err, tc.wantErr)
				}
				if names(s) != before {
					t.Errorf("after an error the set changed: %s", names(s))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(s); got != tc.want {
				t.Errorf("kept %q, want %q", got, tc.want)
			}
			if tc.manifest {
				for _, env := range s.Envs() {
					for _, row := range s.Table(env) {
						if len(tc.sel.Seeds) > 0 && row.Expected != len(tc.sel.Seeds) {
							t.Errorf("%s %s: %d seeds expected, want %d", env, row.Controller, row.Expected, len(tc.sel.Seeds))
						}
						if len(tc.sel.Controllers) > 0 && !slices.Contains(tc.sel.Controllers, row.Controller) {
							t.Errorf("%s: row %s is not selected", env, row.Controller)
						}
					}
				}
			}
		})
	}
}
