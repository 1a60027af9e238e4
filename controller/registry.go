package controller

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Settings are one method's own configuration: a pointer to a struct whose
// fields carry `toml` tags. A table of settings is decoded over the
// defaults, strictly, and validated (DecodeSettings; configs decodes a
// config file's table with the same rules); Build calls New.
type Settings interface {
	// Validate reports the first invalid field, naming it and what is allowed.
	Validate() error
	// New builds a fresh method from the settings. It refuses invalid
	// settings with Validate's error (Build relies on it and does not
	// validate again).
	New() (Method, error)
}

// Entry describes one registered method.
type Entry struct {
	// Name is the selectable name, e.g. "hypercontroller".
	Name string
	// Summary is one line for `hyperctl controllers`.
	Summary string
	// Defaults returns a fresh pointer to the method's default settings.
	Defaults func() Settings
}

var registry = struct {
	sync.RWMutex
	m map[string]Entry
}{m: map[string]Entry{}}

// Register adds a method to the registry. Names are lower-case and unique.
func Register(e Entry) error {
	if e.Name == "" || e.Name != strings.ToLower(e.Name) {
		return fmt.Errorf("controller: register %q: name must be non-empty and lower-case", e.Name)
	}
	if e.Defaults == nil {
		return fmt.Errorf("controller: register %q: no Defaults", e.Name)
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[e.Name]; dup {
		return fmt.Errorf("controller: register %q: already registered", e.Name)
	}
	registry.m[e.Name] = e
	return nil
}

// MustRegister is Register for package init functions; it panics on a
// programming error (a duplicate or malformed entry).
func MustRegister(e Entry) {
	if err := Register(e); err != nil {
		panic(err)
	}
}

// Lookup finds a method by name (case-insensitive). The error lists the
// valid names.
func Lookup(name string) (Entry, error) {
	registry.RLock()
	defer registry.RUnlock()
	if e, ok := registry.m[strings.ToLower(strings.TrimSpace(name))]; ok {
		return e, nil
	}
	return Entry{}, fmt.Errorf("unknown controller %q; valid controllers: %s", name, strings.Join(namesLocked(), ", "))
}

// Entries returns all registered methods sorted by name.
func Entries() []Entry {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Entry, 0, len(registry.m))
	for _, n := range namesLocked() {
		out = append(out, registry.m[n])
	}
	return out
}

// Names returns the registered names, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	out := make([]string, 0, len(registry.m))
	for n := range registry.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Build makes a driver for a registered method from its settings (nil: the
// method's defaults). Invalid settings are refused by the method's New.
func Build(name string, settings Settings, space Space, opts Options) (*Controller, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if settings == nil {
		settings = e.Defaults()
	}
	m, err := settings.New()
	if err != nil {
		return nil, fmt.Errorf("controller %s: %w", e.Name, err)
	}
	return New(e.Name, m, space, opts)
}
