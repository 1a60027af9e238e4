package policy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
	"github.com/hyperctl/hyperctl/ppo/policy"
)

// unsealed returns a sealed file's JSON without its checksum line, with
// edit applied to its fields (nil: none), as an older hyperctl wrote it.
func unsealed(t *testing.T, b []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	body, sealed, err := statecodec.OpenJSON(b)
	if err != nil || !sealed {
		t.Fatalf("not a sealed file (%v)", err)
	}
	if edit == nil {
		return append(body, '\n')
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// bumpAfter adds 1 (mod 10) to the first digit after the first key.
func bumpAfter(t *testing.T, b []byte, key string) []byte {
	t.Helper()
	b = bytes.Clone(b)
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		t.Fatalf("no %s", key)
	}
	for j := i + len(key); j < len(b); j++ {
		if c := b[j]; c >= '0' && c <= '9' {
			b[j] = '0' + (c-'0'+1)%10
			return b
		}
	}
	t.Fatalf("no digit after %s", key)
	return nil
}

// A policy's sidecar and its judge.json are sealed: a changed digit, a
// deleted checksum line and an empty weights digest are refused as
// damaged, naming the file, by Load and by judge, which never certifies a
// damaged policy; the unsealed form of an older version is read only
// where its own version field proves it old, and said so.
func TestSealedPolicyFiles(t *testing.T) {
	good := judged(t)
	_, meta := policy.Paths(good, policy.Best)
	sidecar, err := os.ReadFile(meta)
	if err != nil {
		t.Fatal(err)
	}
	judge, err := os.ReadFile(filepath.Join(good, policy.JudgeFile))
	if err != nil {
		t.Fatal(err)
	}
	v2 := func(m map[string]any) { m["format_version"] = 2 }
	for _, c := range []struct {
		name     string
		file     string // policy-best.json or judge.json
		bytes    []byte
		want     string // what reading it says ("" when it is read, and said to be old)
		wantJudg string // what judge says ("" when it certifies)
	}{
		{"sidecar: a changed digit of frames", meta, bumpAfter(t, sidecar, `"frames": `), "damaged", "damaged"},
		{"sidecar: a changed digit of eval_return", meta, bumpAfter(t, sidecar, `"seed": `), "damaged", "damaged"},
		{"sidecar: its checksum line deleted", meta, unsealed(t, sidecar, nil), "no checksum line", "no checksum line"},
		{"sidecar: version 2 with an empty weights digest", meta, unsealed(t, sidecar, func(m map[string]any) { v2(m); m["weights_sha256"] = "" }), "weights_sha256 is empty", "weights_sha256 is empty"},
		{"sidecar: version 2, unsealed (an older hyperctl's)", meta, unsealed(t, sidecar, v2), "", ""},
		{"judge.json: a changed digit of a return", filepath.Join(good, policy.JudgeFile), bumpAfter(t, judge, `"mean": `), "damaged", "damaged"},
		{"judge.json: its checksum line deleted", filepath.Join(good, policy.JudgeFile), unsealed(t, judge, nil), "no checksum line", "no checksum line"},
		{"judge.json: without format_version, unsealed (an older hyperctl's)", filepath.Join(good, policy.JudgeFile), unsealed(t, judge, func(m map[string]any) { delete(m, "format_version") }), "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(good)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, filepath.Base(c.file))
			if err := os.WriteFile(path, c.bytes, 0o644); err != nil {
				t.Fatal(err)
			}
			if c.file == meta {
				p, err := policy.Load(dir, policy.Best)
				if c.want != "" {
					if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
						t.Fatalf("Load: %v; want a refusal naming %s and saying %q", err, path, c.want)
					}
				} else if err != nil || !p.Unsealed || !strings.Contains(p.UnsealedNote(dir, policy.Best), "older hyperctl") {
					t.Fatalf("Load of the old form: %v (unsealed %v)", err, p != nil && p.Unsealed)
				}
			} else {
				j, err := policy.ReadJudgement(dir)
				if c.want != "" {
					if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
						t.Fatalf("ReadJudgement: %v; want a refusal naming %s and saying %q", err, path, c.want)
					}
				} else if err != nil || !j.Unsealed {
					t.Fatalf("ReadJudgement of the old form: %v (unsealed %v)", err, j.Unsealed)
				}
			}
			_, _, err := policy.JudgeRun(context.Background(), dir, policy.Best, policy.MinJudgeEpisodes, "test")
			switch {
			case c.wantJudg == "" && err != nil:
				t.Fatalf("judge refused the old form: %v", err)
			case c.wantJudg != "" && (err == nil || !strings.Contains(err.Error(), c.wantJudg)):
				t.Fatalf("judge: %v; want a refusal saying %q", err, c.wantJudg)
			}
		})
	}
}
