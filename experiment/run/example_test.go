package run_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/rs/zerolog"

	"github.com/hyperctl/hyperctl/configs"
	"github.com/hyperctl/hyperctl/envs"
	_ "github.com/hyperctl/hyperctl/envs/all" // registers the shipped environments
	"github.com/hyperctl/hyperctl/experiment/run"
)

// The short path: the shipped environments (envs/all), an environment's
// built-in config with a few overrides (configs.Default), resolved
// (Resolve) and trained into a folder (run.Train, in trainTiny below):
// here 3 small iterations of Reacher.
func ExampleTrain() {
	cfg, err := configs.Default("reacher", configs.WithSet("iterations=3", "ppo.num_envs=2", "ppo.batch_size=64", "ppo.minibatch_size=32", "ppo.threads=1"))
	trainTiny(cfg, err)
	// Output: reacher fixed 3 iterations, 192 frames
}

// trainTiny is the rest of the path, shared by the examples: resolve the
// config, train it into a fresh folder, print what its summary says.
func trainTiny(cfg configs.Run, err error) {
	if err != nil {
		log.Fatal(err)
	}
	plan, err := cfg.Resolve()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "hyperctl-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	res, err := run.Train(context.Background(), plan, run.Options{Out: filepath.Join(dir, cfg.Env), Log: zerolog.Nop()})
	if err != nil {
		log.Fatal(err)
	}
	s := res.Summary
	fmt.Println(s.Env, s.Controller, s.Iterations, "iterations,", s.Frames, "frames")
}

// drift is a one-dimensional environment of the user's own: the action
// moves a point, rewarded by its closeness to 0. It implements envs.Env and
// envs.StateSaver, which checkpoints need.
type drift struct{ x float64 }

func driftSpec() envs.Spec {
	return envs.Spec{ID: "Drift-v0", Name: "drift", MaxEpisodeSteps: 20,
		Observation: envs.Box{Low: []float64{-10}, High: []float64{10}},
		Action:      envs.Box{Low: []float64{-1}, High: []float64{1}}}
}

func (d *drift) Spec() envs.Spec { return driftSpec() }

func (d *drift) Reset(int64) ([]float64, error) {
	d.x = 1
	return []float64{d.x}, nil
}

func (d *drift) Step(a []float64) (envs.Transition, error) {
	if err := envs.CheckAction(driftSpec(), a); err != nil {
		return envs.Transition{}, err
	}
	d.x = math.Max(-10, math.Min(10, d.x+0.1*a[0]))
	return envs.Transition{Obs: []float64{d.x}, Reward: -math.Abs(d.x)}, nil
}

func (d *drift) Close() error { return nil }

func (d *drift) SaveState() ([]byte, error) {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(d.x)), nil
}

func (d *drift) LoadState(b []byte) error {
	if len(b) != 8 {
		return fmt.Errorf("drift: state of %d bytes, want 8", len(b))
	}
	d.x = math.Float64frombits(binary.LittleEndian.Uint64(b))
	return nil
}

// An environment of your own: register it, name it in a config (the TOML
// of `hyperctl train --config`, over the built-in defaults), and train it
// like a shipped one (examples/customenv is a whole program).
func ExampleTrain_customEnvironment() {
	envs.MustRegister(driftSpec(), func() (envs.Env, error) { return &drift{}, nil })
	cfg, err := configs.Parse("drift.toml", `
env = "drift"
iterations = 2
[ppo]
num_envs = 2
batch_size = 40
minibatch_size = 20
threads = 1
`)
	trainTiny(cfg, err)
	// Output: drift fixed 2 iterations, 80 frames
}
