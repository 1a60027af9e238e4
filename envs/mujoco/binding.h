// C side of hyperctl's MuJoCo binding: guarded entry points that turn
// mju_error into a return code (through setjmp/longjmp), a stepping loop that
// needs one cgo call per environment step and reports instabilities, and
// model introspection through MuJoCo's X macros.
#ifndef HYPERCTL_MUJOCO_BINDING_H_
#define HYPERCTL_MUJOCO_BINDING_H_

#include <mujoco/mujoco.h>

#define HC_MSG 512

// Status codes returned by the guarded calls.
enum {
  HC_OK = 0,
  HC_WARNING = 1,  // MuJoCo raised a warning (mjData.warning counter > 0)
  HC_BADSTATE = 2, // qpos/qvel holds NaN, Inf or |x| > mjMAXVAL after stepping
  HC_ERROR = 3     // mju_error was raised (e.g. stack overflow)
};

// hcStatus describes the outcome of the last guarded call on one mjData. It
// lives in C memory, one per Data.
typedef struct hcStatus_ {
  int code;      // HC_*
  int warning;   // first mjtWarning index with a non-zero counter, or -1
  int info;      // warning lastinfo, or the bad qpos/qvel index
  int isvel;     // for HC_BADSTATE: 1 if the bad entry is in qvel
  int substep;   // 0-based mj_step call at which the problem was detected
  char msg[HC_MSG];
} hcStatus;

void hc_init(void);
int hc_handlers_installed(void);
mjModel* hc_load_xml(const char* xml, int n, char* err, int errsz);
mjModel* hc_copy_model(const mjModel* m, hcStatus* st);
mjData* hc_make_data(const mjModel* m, hcStatus* st);
int hc_step(const mjModel* m, mjData* d, int n, int post, hcStatus* st);
int hc_forward(const mjModel* m, mjData* d, hcStatus* st);
int hc_reset(const mjModel* m, mjData* d, hcStatus* st);
int hc_step_raw(const mjModel* m, mjData* d, long n, hcStatus* st);
int hc_bench_env(const mjModel* m, mjData* d, long nenv, int frame_skip,
                 int episode, const mjtNum* actions, int nact,
                 const mjtNum* init, int ninit, hcStatus* st);
int hc_model_field(const mjModel* m, const char* name, void** ptr, int* type,
                   int* nr, int* nc);
const char* hc_model_field_name(int i);

// hc_guard runs fn(arg) guarded: mju_error inside it returns HC_ERROR with
// the message in st. fn returns HC_OK or an HC_* code.
typedef int (*hc_fn)(void* arg);
int hc_guard(hcStatus* st, hc_fn fn, void* arg);

#endif  // HYPERCTL_MUJOCO_BINDING_H_
