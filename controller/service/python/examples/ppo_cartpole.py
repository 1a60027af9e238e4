#!/usr/bin/python3
"""CleanRL-style PPO on CartPole-v1 whose lr and clip come from ``hyperctl serve``.

A single-file PPO in the style of CleanRL's ppo.py (same network, loss and
defaults: 4 environments x 128 steps, 4 epochs of 4 minibatches, GAE
lambda 0.95, entropy 0.01, value clipping, gradient norm 0.5) on PyTorch, and
a vectorised CartPole-v1 written in numpy from the cart-pole equations of
Barto, Sutton & Anderson (1983) with Gymnasium's constants and limits.

Every iteration it asks the server for the learning rate and the PPO clip
(the server's controller decides every ``--interval`` iterations and keeps
the configuration in between), trains one iteration with them, and reports
R_t, the mean return of the episodes that finished in that iteration (the
previous R_t when none finished). With ``--fixed`` it uses CleanRL's fixed
values instead (lr 2.5e-4 annealed linearly to 0, clip 0.2) and no server.

Runs on Debian's python3-torch and python3-numpy::

    hyperctl serve --listen 127.0.0.1:8421 --state /tmp/hyperctl-state &
    /usr/bin/python3 controller/service/python/examples/ppo_cartpole.py \\
        --url http://127.0.0.1:8421 --iterations 150 --seed 1 --out run.csv

With ``--lr`` (and ``--clip``) the session starts from those values: the
first decision period runs with them, then the controller chooses. A wrong
start and a wider log-scale lr range show whether the controller rescues
it (issue 37)::

    /usr/bin/python3 controller/service/python/examples/ppo_cartpole.py \\
        --url http://127.0.0.1:8421 --iterations 40 --seed 1 \\
        --lr 3e-5 --lr-range 1e-5,1e-2 --lr-scale log --out rescue.csv

It writes one CSV row per iteration: iteration, frames, wall time,
R_t, finished episodes, their mean return, lr, clip, and whether the
controller made a decision at that iteration.
"""

import argparse
import csv
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
from torch.distributions.categorical import Categorical

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import hyperctl  # noqa: E402


class CartPole:
    """CartPole-v1, vectorised over n environments, with auto-reset.

    State (x, x_dot, theta, theta_dot); action 0 pushes left, 1 right with a
    10 N force; Euler steps of 0.02 s; reward 1 per step; an episode
    terminates when |x| > 2.4 or |theta| > 12 degrees and is truncated at
    500 steps; resets draw every state variable from U(-0.05, 0.05).
    """

    gravity, masscart, masspole, half_length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_limit, x_limit, max_steps = 12 * 2 * math.pi / 360, 2.4, 500

    def __init__(self, n, rng):
        self.n, self.rng = n, rng
        self.total_mass = self.masscart + self.masspole
        self.polemass_length = self.masspole * self.half_length
        self.state = rng.uniform(-0.05, 0.05, size=(n, 4))
        self.steps = np.zeros(n, dtype=np.int64)
        self.ret = np.zeros(n)

    def obs(self):
        return self.state.astype(np.float32)

    def step(self, action):
        x, x_dot, th, th_dot = self.state.T
        force = np.where(action == 1, self.force_mag, -self.force_mag)
        cos, sin = np.cos(th), np.sin(th)
        temp = (force + self.polemass_length * th_dot ** 2 * sin) / self.total_mass
        th_acc = (self.gravity * sin - cos * temp) / (
            self.half_length * (4.0 / 3.0 - self.masspole * cos ** 2 / self.total_mass))
        x_acc = temp - self.polemass_length * th_acc * cos / self.total_mass
        x = x + self.tau * x_dot
        x_dot = x_dot + self.tau * x_acc
        th = th + self.tau * th_dot
        th_dot = th_dot + self.tau * th_acc
        self.state = np.stack([x, x_dot, th, th_dot], axis=1)
        self.steps += 1
        self.ret += 1.0
        terminated = (np.abs(x) > self.x_limit) | (np.abs(th) > self.theta_limit)
        done = terminated | (self.steps >= self.max_steps)
        finished = self.ret[done].tolist()
        if done.any():
            k = int(done.sum())
            self.state[done] = self.rng.uniform(-0.05, 0.05, size=(k, 4))
            self.steps[done] = 0
            self.ret[done] = 0.0
        return self.obs(), np.ones(self.n, dtype=np.float32), done, finished


def layer_init(layer, std=math.sqrt(2), bias_const=0.0):
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0))
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, n_actions), std=0.01))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        probs = Categorical(logits=self.actor(x))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8421", help="hyperctl serve address")
    p.add_argument("--token-file", default="", help="file holding the server's token")
    p.add_argument("--session-id", default="", help="session id (default: ppo-cartpole-seed<N>); an existing one is resumed")
    p.add_argument("--method", default="hypercontroller", help="controller (hyperctl controllers)")
    p.add_argument("--interval", type=int, default=5, help="decision interval in iterations")
    p.add_argument("--fixed", action="store_true", help="no server: CleanRL's lr 2.5e-4 (annealed) and clip 0.2")
    p.add_argument("--lr", type=float, default=None,
                   help="start the session from this lr (and --clip); default: the method's first choice")
    p.add_argument("--clip", type=float, default=0.2, help="the start's clip, with --lr")
    p.add_argument("--lr-range", default="1e-5,1e-3", help="the tuned lr range LOW,HIGH")
    p.add_argument("--lr-scale", default="linear", choices=["linear", "log"], help="the tuned lr range's scale")
    p.add_argument("--iterations", type=int, default=150)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--num-envs", type=int, default=4)
    p.add_argument("--num-steps", type=int, default=128)
    p.add_argument("--retries", type=int, default=30, help="client retries of a transient failure (server restarts)")
    p.add_argument("--out", default="", help="CSV file, one row per iteration")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    gamma, gae_lambda, minibatches, epochs = 0.99, 0.95, 4, 4
    ent_coef, vf_coef, max_grad_norm = 0.01, 0.5, 0.5
    fixed_lr, fixed_clip = 2.5e-4, 0.2

    torch.set_num_threads(1)  # bitwise reproducible runs
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    envs = CartPole(args.num_envs, rng)
    agent = Agent(4, 2)
    optimizer = torch.optim.Adam(agent.parameters(), lr=fixed_lr, eps=1e-5)

    ctl = None
    if not args.fixed:
        token = open(args.token_file).read().strip() if args.token_file else None
        client = hyperctl.Client(args.url, token=token, retries=args.retries, backoff=0.1, max_backoff=2.0)
        try:
            lr_low, lr_high = (float(x) for x in args.lr_range.split(","))
        except ValueError:
            sys.exit("--lr-range: want LOW,HIGH, got %r" % args.lr_range)
        ctl = hyperctl.Controller(
            args.url, client=client,
            space=[{"name": "lr", "low": lr_low, "high": lr_high, "scale": args.lr_scale},
                   {"name": "clip", "low": 0.1, "high": 0.5}],
            method=args.method, interval=args.interval, seed=args.seed, iterations=args.iterations,
            session_id=args.session_id or "ppo-cartpole-seed%d" % args.seed,
            start=None if args.lr is None else {"lr": args.lr, "clip": args.clip})
        if ctl.iteration != 0:
            sys.exit("session %s has already observed %d iterations; use a new --session-id" % (ctl.session_id, ctl.iteration))

    n, T = args.num_envs, args.num_steps
    batch = n * T
    mb = batch // minibatches
    obs = torch.zeros((T, n, 4))
    actions = torch.zeros((T, n), dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros((T, n)) for _ in range(4))

    out = open(args.out, "w", newline="") if args.out else None
    writer = csv.writer(out) if out else None
    if writer:
        writer.writerow(["iteration", "frames", "wall_s", "reward", "episodes", "mean_return", "lr", "clip", "decision"])
    next_obs = torch.from_numpy(envs.obs())
    next_done = torch.zeros(n)
    prev_r, start, frames = 0.0, time.time(), 0
    for it in range(args.iterations):
        t0 = time.time()
        if ctl is not None:
            cfg = ctl.suggest()
            lr, clip, decision = cfg["lr"], cfg["clip"], ctl.last_decision
        else:
            lr, clip, decision = fixed_lr * (1.0 - it / args.iterations), fixed_clip, False
        for g in optimizer.param_groups:
            g["lr"] = lr

        finished = []
        for step in range(T):
            obs[step], dones[step] = next_obs, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
            values[step], actions[step], logprobs[step] = value.flatten(), action, logprob
            o, r, d, fin = envs.step(action.numpy())
            finished += fin
            rewards[step] = torch.from_numpy(r)
            next_obs, next_done = torch.from_numpy(o), torch.from_numpy(d.astype(np.float32))
        frames += batch

        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(T)):
                if t == T - 1:
                    nonterminal, nextvalues = 1.0 - next_done, next_value
                else:
                    nonterminal, nextvalues = 1.0 - dones[t + 1], values[t + 1]
                delta = rewards[t] + gamma * nextvalues * nonterminal - values[t]
                advantages[t] = lastgaelam = delta + gamma * gae_lambda * nonterminal * lastgaelam
            returns = advantages + values

        b_obs, b_logprobs, b_actions = obs.reshape(-1, 4), logprobs.reshape(-1), actions.reshape(-1)
        b_adv, b_ret, b_val = advantages.reshape(-1), returns.reshape(-1), values.reshape(-1)
        inds = np.arange(batch)
        for _ in range(epochs):
            rng.shuffle(inds)
            for s in range(0, batch, mb):
                mbi = torch.from_numpy(inds[s:s + mb])
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mbi], b_actions[mbi])
                ratio = (newlogprob - b_logprobs[mbi]).exp()
                adv = b_adv[mbi]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
                newvalue = newvalue.view(-1)
                v_unclipped = (newvalue - b_ret[mbi]) ** 2
                v_clipped = b_val[mbi] + torch.clamp(newvalue - b_val[mbi], -clip, clip)
                v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - b_ret[mbi]) ** 2).mean()
                loss = pg_loss - ent_coef * entropy.mean() + v_loss * vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), max_grad_norm)
                optimizer.step()

        r_t = float(np.mean(finished)) if finished else prev_r
        if ctl is not None:
            ctl.observe(r_t, frames=batch, elapsed=time.time() - t0, returns=finished)
        prev_r = r_t
        if writer:
            writer.writerow([it, frames, "%.3f" % (time.time() - start), repr(r_t), len(finished),
                             repr(float(np.mean(finished))) if finished else "", repr(lr), repr(clip), int(decision)])
            out.flush()
    if out:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
