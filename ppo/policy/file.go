package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/nlpodyssey/safetensors"

	"github.com/hyperctl/hyperctl/internal/ground/safefile"
	"github.com/hyperctl/hyperctl/internal/ground/statecodec"
)

// Names of the policies a training run keeps.
const (
	Final = "policy-final" // the policy at the end of training (or the latest iteration)
	Best  = "policy-best"  // the policy with the highest evaluation return so far
)

// WeightsExt and MetaExt are the file extensions of a policy's two files.
const (
	WeightsExt = ".safetensors"
	MetaExt    = ".json"
)

// Paths returns the weights and sidecar paths of the policy name in dir.
func Paths(dir, name string) (weights, meta string) {
	return filepath.Join(dir, name+WeightsExt), filepath.Join(dir, name+MetaExt)
}

// Exists reports whether dir holds the sidecar of the policy name.
func Exists(dir, name string) bool {
	_, m := Paths(dir, name)
	_, err := os.Stat(m)
	return err == nil
}

// f32 is a float32 tensor for safetensors' serializer.
type f32 struct {
	shape []uint64
	data  []byte
}

func (t f32) DType() safetensors.DType { return safetensors.F32 }
func (t f32) Shape() []uint64          { return t.shape }
func (t f32) Data() []byte             { return t.data }
func (t f32) DataLen() uint64          { return uint64(len(t.data)) }

func newF32(xs []float32, shape ...int) f32 {
	t := f32{data: make([]byte, 4*len(xs))}
	for _, s := range shape {
		t.shape = append(t.shape, uint64(s))
	}
	for i, x := range xs {
		binary.LittleEndian.PutUint32(t.data[4*i:], math.Float32bits(x))
	}
	return t
}

// tensorName is the CleanRL state_dict name of layer k's weight or bias.
func tensorName(net string, k int, part string) string {
	return fmt.Sprintf("%s.%d.%s", net, 2*k, part)
}

const (
	actorNet  = "actor_mean"
	criticNet = "critic"
	logStdKey = "actor_logstd"
)

// Encode returns the safetensors bytes of the networks (see the package
// doc for the names and shapes).
func (p *Policy) Encode() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	ts := map[string]f32{logStdKey: newF32(p.LogStd, 1, len(p.LogStd))}
	for _, net := range []struct {
		name string
		ls   []Layer
	}{{actorNet, p.Actor}, {criticNet, p.Critic}} {
		for k, l := range net.ls {
			ts[tensorName(net.name, k, "weight")] = newF32(l.W, l.Out, l.In)
			ts[tensorName(net.name, k, "bias")] = newF32(l.B, l.Out)
		}
	}
	// "format": "pt" is what PyTorch's safetensors writer records.
	b, err := safetensors.Serialize(ts, map[string]string{"format": "pt", "hyperctl": Format})
	if err != nil {
		return nil, fmt.Errorf("policy: encode weights: %w", err)
	}
	return b, nil
}

// Save writes the policy name into dir: the weights, then the sidecar,
// each atomically and durably (safefile.WriteAtomic: a temporary file,
// fsync'd and renamed into place, then the folder fsync'd). It fills in Meta's format fields, the weights file's name
// and hash, and the architecture.
func (p *Policy) Save(dir, name string) error {
	wpath, mpath := Paths(dir, name)
	p.Meta.Format, p.Meta.FormatVersion = Format, FormatVersion
	p.Meta.Weights = filepath.Base(wpath)
	p.Meta.Architecture.Layout = LayoutCleanRL
	p.Meta.Architecture.Actor = widths(p.Meta.ObsSize, p.Actor)
	p.Meta.Architecture.Critic = widths(p.Meta.ObsSize, p.Critic)
	w, err := p.Encode()
	if err != nil {
		return err
	}
	sum := sha256.Sum256(w)
	p.Meta.WeightsSHA256 = hex.EncodeToString(sum[:])
	meta, err := statecodec.SealJSON(p.Meta)
	if err != nil {
		return fmt.Errorf("policy: encode %s: %w", mpath, err)
	}
	if err := safefile.WriteAtomic(wpath, w); err != nil {
		return fmt.Errorf("policy: %w", err) // names the file
	}
	if err := safefile.WriteAtomic(mpath, meta); err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	return nil
}

func widths(obs int, ls []Layer) []int {
	w := []int{obs}
	for _, l := range ls {
		w = append(w, l.Out)
	}
	return w
}

// ErrTorn reports a weights file that does not match its sidecar's hash:
// the pair is being rewritten (Load retries once) or was damaged.
var ErrTorn = errors.New("weights file does not match the sidecar's weights_sha256: being rewritten, or damaged")

// UnsealedNote says that p's sidecar was written before sidecars were
// sealed ("" when it is sealed), for the commands that read it to show.
func (p *Policy) UnsealedNote(dir, name string) string {
	if !p.Unsealed {
		return ""
	}
	_, mpath := Paths(dir, name)
	return fmt.Sprintf("%s: written by an older hyperctl (format_version before %d) without a checksum: read as it is; a damaged byte in it would go unnoticed", mpath, firstSealedVersion)
}

// Load reads the policy name from dir and validates it. A weights file
// whose hash differs from the sidecar's (a save in progress) is re-read once.
func Load(dir, name string) (*Policy, error) {
	p, err := load(dir, name)
	if errors.Is(err, ErrTorn) {
		p, err = load(dir, name)
	}
	return p, err
}

func load(dir, name string) (*Policy, error) {
	wpath, mpath := Paths(dir, name)
	mb, err := os.ReadFile(mpath)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	var meta Meta
	body, sealed, err := statecodec.OpenJSON(mb)
	if err != nil {
		return nil, fmt.Errorf("policy: sidecar %s is damaged: %w", mpath, err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&meta); err != nil {
		return nil, fmt.Errorf("policy: sidecar %s is damaged: %w", mpath, err)
	}
	if meta.Format != Format || meta.FormatVersion < 1 || meta.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("policy: sidecar %s: format %q version %d, want %q version 1 to %d", mpath, meta.Format, meta.FormatVersion, Format, FormatVersion)
	}
	if !sealed && meta.FormatVersion >= firstSealedVersion {
		return nil, fmt.Errorf("policy: sidecar %s is damaged: it has no checksum line, and its format_version %d is sealed", mpath, meta.FormatVersion)
	}
	if meta.WeightsSHA256 == "" {
		return nil, fmt.Errorf("policy: sidecar %s is damaged: its weights_sha256 is empty, so its weights cannot be checked", mpath)
	}
	if meta.FormatVersion == 1 {
		meta.Iteration-- // version 1 counted iterations completed
		meta.FormatVersion = FormatVersion
	}
	if meta.Weights != "" && meta.Weights != filepath.Base(wpath) {
		return nil, fmt.Errorf("policy: sidecar %s names weights %q, want %q", mpath, meta.Weights, filepath.Base(wpath))
	}
	wb, err := os.ReadFile(wpath)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	sum := sha256.Sum256(wb)
	if hex.EncodeToString(sum[:]) != meta.WeightsSHA256 {
		return nil, fmt.Errorf("policy: %s: %w", wpath, ErrTorn)
	}
	p, err := Decode(meta, wb)
	if err != nil {
		return nil, fmt.Errorf("policy: %s: %w", wpath, err)
	}
	p.Unsealed = !sealed
	return p, nil
}

var layerName = regexp.MustCompile(`^(actor_mean|critic)\.(\d+)\.(weight|bias)$`)

// Decode builds a policy from a sidecar and safetensors bytes, and
// validates it.
func Decode(meta Meta, weights []byte) (*Policy, error) {
	st, err := safetensors.Deserialize(weights)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	p := &Policy{Meta: meta}
	type lay struct {
		w, b   []float32
		wShape []uint64
	}
	nets := map[string]map[int]*lay{actorNet: {}, criticNet: {}}
	for _, nt := range st.Tensors() {
		tv := nt.TensorView
		if tv.DType() != safetensors.F32 {
			return nil, fmt.Errorf("tensor %s has dtype %v, want F32", nt.Name, tv.DType())
		}
		vals := make([]float32, len(tv.Data())/4)
		for i := range vals {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(tv.Data()[4*i:]))
		}
		if nt.Name == logStdKey {
			if s := tv.Shape(); len(s) != 2 || s[0] != 1 {
				return nil, fmt.Errorf("tensor %s has shape %v, want [1, act]", nt.Name, s)
			}
			p.LogStd = vals
			continue
		}
		mm := layerName.FindStringSubmatch(nt.Name)
		if mm == nil {
			return nil, fmt.Errorf("unexpected tensor %q (want %s, actor_mean.N.weight/bias, critic.N.weight/bias)", nt.Name, logStdKey)
		}
		idx, _ := strconv.Atoi(mm[2])
		if idx%2 != 0 {
			return nil, fmt.Errorf("tensor %s: Linear layers sit at even indices", nt.Name)
		}
		l := nets[mm[1]][idx/2]
		if l == nil {
			l = &lay{}
			nets[mm[1]][idx/2] = l
		}
		if mm[3] == "weight" {
			if len(tv.Shape()) != 2 {
				return nil, fmt.Errorf("tensor %s has shape %v, want [out, in]", nt.Name, tv.Shape())
			}
			l.w, l.wShape = vals, tv.Shape()
		} else {
			if len(tv.Shape()) != 1 {
				return nil, fmt.Errorf("tensor %s has shape %v, want [out]", nt.Name, tv.Shape())
			}
			l.b = vals
		}
	}
	for _, net := range []string{actorNet, criticNet} {
		var ls []Layer
		for k := 0; k < len(nets[net]); k++ {
			l := nets[net][k]
			if l == nil || l.w == nil || l.b == nil {
				return nil, fmt.Errorf("%s: layer %d (index %d) is missing its weight or bias", net, k, 2*k)
			}
			ls = append(ls, Layer{Out: int(l.wShape[0]), In: int(l.wShape[1]), W: l.w, B: l.b})
		}
		if net == actorNet {
			p.Actor = ls
		} else {
			p.Critic = ls
		}
	}
	if p.LogStd == nil {
		return nil, fmt.Errorf("tensor %s is missing", logStdKey)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}
