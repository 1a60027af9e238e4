/*
 * envfloor: the bare C floor of a MuJoCo environment's stepping. It loads an
 * MJCF file, makes its data, runs mj_forward (as an environment's reset
 * ends), then for N environment steps calls mj_step frame_skip times with
 * zero controls and nothing else: no observation, reward, action copy, reset
 * or Go. It prints the environment steps per second of wall time and of the
 * process's CPU time, and the final qpos[0] and qvel[0] so that the run can be
 * compared with the Go environment stepped the same way (BenchmarkEnvVsFloor
 * in envs/mujoco follows the same trajectory). scripts/env-floor.sh builds it
 * with cc -O3 -march=native against -lmujoco and runs it.
 *
 * With POST 1 it also calls mj_rnePostConstraint once per environment step,
 * the work an environment that observes cfrc_ext does after its steps
 * (Humanoid-v4).
 *
 * With EPISODE > 0 it steps as a training run's environment does instead:
 * controls drawn uniformly from each actuator's control range every
 * environment step (a fixed linear congruential sequence, the same in
 * every run), and a reset (mj_resetData, mj_forward) every EPISODE
 * environment steps, as the time limit ends an episode. On HalfCheetah this
 * is cheaper than zero controls: a body lying still keeps more contacts
 * than one thrashing about, and contacts are most of a step's work.
 *
 *   envfloor MODEL.xml FRAME_SKIP ENV_STEPS [POST [EPISODE]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <mujoco/mujoco.h>

static double seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 4 || argc > 6) {
    fprintf(stderr, "usage: %s MODEL.xml FRAME_SKIP ENV_STEPS [POST [EPISODE]]\n", argv[0]);
    return 2;
  }
  int post = argc >= 5 && atoi(argv[4]) == 1;
  long episode = argc == 6 ? atol(argv[5]) : 0;
  int frameSkip = atoi(argv[2]);
  long steps = atol(argv[3]);
  if (frameSkip < 1 || steps < 1 || episode < 0) {
    fprintf(stderr, "envfloor: FRAME_SKIP and ENV_STEPS must be positive, EPISODE not negative\n");
    return 2;
  }
  char err[1000] = "";
  mjModel *m = mj_loadXML(argv[1], NULL, err, sizeof err);
  if (!m) {
    fprintf(stderr, "envfloor: %s: %s\n", argv[1], err);
    return 1;
  }
  mjData *d = mj_makeData(m);
  mj_forward(m, d);

  unsigned lcg = 12345;
  double wall0 = seconds(CLOCK_MONOTONIC), cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  for (long k = 0; k < steps; k++) {
    if (episode > 0) {
      if (k > 0 && k % episode == 0) {
        mj_resetData(m, d);
        mj_forward(m, d);
      }
      for (int i = 0; i < m->nu; i++) {
        lcg = lcg * 1664525u + 1013904223u;
        double u = (double)(lcg >> 8) / 16777216.0, lo = -1, hi = 1;
        if (m->actuator_ctrllimited[i]) {
          lo = m->actuator_ctrlrange[2 * i];
          hi = m->actuator_ctrlrange[2 * i + 1];
        }
        d->ctrl[i] = lo + u * (hi - lo);
      }
    }
    for (int s = 0; s < frameSkip; s++) {
      mj_step(m, d);
    }
    if (post) {
      mj_rnePostConstraint(m, d);
    }
  }
  double wall = seconds(CLOCK_MONOTONIC) - wall0, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0;

  printf("envfloor %s frame_skip %d env_steps %ld episode %ld: %.0f env-steps/s %.0f env-steps/cpu-s qpos0 %.17g qvel0 %.17g\n",
         argv[1], frameSkip, steps, episode, steps / wall, steps / cpu, d->qpos[0], d->qvel[0]);
  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
