package population

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBestMember(t *testing.T) {
	ret := func(v float64) *float64 { return &v }
	two := []ResultMember{{Dir: "reacher/pb2/seed0", FinalEvalReturn: ret(-5)}, {Dir: "reacher/pb2/seed1", FinalEvalReturn: ret(-4)}}
	for _, c := range []struct {
		name    string
		result  *Result // nil: no result.json
		dir     string
		k       int
		ret     float64
		wantErr string
	}{
		{"finished", &Result{Members: two, Best: 1}, "reacher/pb2/seed1", 1, -4, ""},
		{"not finished", nil, "", 0, 0, "is not finished (no result.json yet)"},
		{"none evaluated", &Result{Members: []ResultMember{{Dir: "a"}}, Best: -1}, "", 0, 0, "names no best member"},
		{"best out of range", &Result{Members: two, Best: 2}, "", 0, 0, "names no best member"},
		{"best without evaluation", &Result{Members: []ResultMember{{Dir: "a"}}, Best: 0}, "", 0, 0, "names no best member"},
		{"folder outside", &Result{Members: []ResultMember{{Dir: "../x", FinalEvalReturn: ret(1)}}, Best: 0}, "", 0, 0, `member 0's folder "../x" is not inside`},
		{"absolute folder", &Result{Members: []ResultMember{{Dir: "/x", FinalEvalReturn: ret(1)}}, Best: 0}, "", 0, 0, "is not inside"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			if c.result != nil {
				if err := WriteResult(out, *c.result); err != nil {
					t.Fatal(err)
				}
			}
			dir, k, r, err := BestMember(out)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), out) {
					t.Fatalf("err %v, want one naming %s and containing %q", err, out, c.wantErr)
				}
				return
			}
			if err != nil || dir != filepath.Join(out, c.dir) || k != c.k || r != c.ret {
				t.Fatalf("got %q %d %v %v, want %q %d %v", dir, k, r, err, filepath.Join(out, c.dir), c.k, c.ret)
			}
		})
	}

	// A corrupt result.json is an error naming it.
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, ResultFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := BestMember(out); err == nil || !strings.Contains(err.Error(), filepath.Join(out, ResultFile)) {
		t.Fatalf("err %v, want one naming result.json", err)
	}
}
