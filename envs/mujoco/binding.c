// C side of hyperctl's MuJoCo binding; see binding.h.
#include "binding.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mjxmacro.h>

// Per-thread guard: the jump target of the guarded call running on this
// thread and the status it reports into. A cgo call stays on one OS thread,
// so several environments can step in parallel on different threads.
static __thread sigjmp_buf* hc_jmp = NULL;
static __thread hcStatus* hc_cur = NULL;

static void hc_copy_msg(const char* msg) {
  if (hc_cur && msg) {
    strncpy(hc_cur->msg, msg, HC_MSG - 1);
    hc_cur->msg[HC_MSG - 1] = 0;
  }
}

// Warnings are read from the mjData counters; the handler keeps the text
// instead of printing it and writing MUJOCO_LOG.TXT.
static void hc_warning_handler(const char* msg) {
  if (hc_cur && hc_cur->msg[0] == 0) {
    hc_copy_msg(msg);
  }
}

// Errors unwind to the guarded call. Outside one (which the Go side never
// does) keep MuJoCo's default behaviour: print and exit.
static void hc_error_handler(const char* msg) {
  if (hc_jmp) {
    hc_copy_msg(msg);
    siglongjmp(*hc_jmp, 1);
  }
  fprintf(stderr, "MuJoCo error outside a guarded call: %s\n", msg);
  exit(1);
}

void hc_init(void) {
  mju_user_warning = hc_warning_handler;
  mju_user_error = hc_error_handler;
}

int hc_handlers_installed(void) {
  return mju_user_warning == hc_warning_handler && mju_user_error == hc_error_handler;
}

static void hc_clear(hcStatus* st) {
  st->code = HC_OK;
  st->warning = -1;
  st->info = 0;
  st->isvel = 0;
  st->substep = 0;
  st->msg[0] = 0;
}

// Guard wraps a statement: mju_error inside it returns HC_ERROR.
#define HC_GUARDED(st, body)               \
  do {                                     \
    sigjmp_buf buf;                        \
    hc_clear(st);                          \
    hc_cur = (st);                         \
    if (sigsetjmp(buf, 0)) {               \
      hc_jmp = NULL;                       \
      hc_cur = NULL;                       \
      (st)->code = HC_ERROR;               \
      return HC_ERROR;                     \
    }                                      \
    hc_jmp = &buf;                         \
    body;                                  \
    hc_jmp = NULL;                         \
    hc_cur = NULL;                         \
  } while (0)

mjModel* hc_load_xml(const char* xml, int n, char* err, int errsz) {
  mjVFS* vfs = (mjVFS*)malloc(sizeof(mjVFS));
  if (!vfs) {
    strncpy(err, "out of memory for VFS", errsz);
    return NULL;
  }
  mj_defaultVFS(vfs);
  if (mj_makeEmptyFileVFS(vfs, "model.xml", n) != 0) {
    strncpy(err, "could not create VFS file", errsz);
    free(vfs);
    return NULL;
  }
  memcpy(vfs->filedata[0], xml, n);
  mjModel* m = mj_loadXML("model.xml", vfs, err, errsz);
  mj_deleteVFS(vfs);
  free(vfs);
  // MuJoCo's compiler may swap the global handlers while it runs; make sure
  // ours are in place afterwards.
  hc_init();
  return m;
}

// hc_copy_model and hc_make_data allocate under the guard (HC_GUARDED): an
// mju_error on the way returns NULL with the message in st.
static int hc_copy_model_into(const mjModel* m, mjModel** out, hcStatus* st) {
  HC_GUARDED(st, *out = mj_copyModel(NULL, m));
  return HC_OK;
}

mjModel* hc_copy_model(const mjModel* m, hcStatus* st) {
  mjModel* c = NULL;
  return hc_copy_model_into(m, &c, st) == HC_OK ? c : NULL;
}

static int hc_make_data_into(const mjModel* m, mjData** out, hcStatus* st) {
  HC_GUARDED(st, *out = mj_makeData(m));
  return HC_OK;
}

mjData* hc_make_data(const mjModel* m, hcStatus* st) {
  mjData* d = NULL;
  return hc_make_data_into(m, &d, st) == HC_OK ? d : NULL;
}

// First warning with a non-zero counter, or -1.
static inline int hc_first_warning(const mjData* d) {
  for (int i = 0; i < mjNWARNING; i++) {
    if (d->warning[i].number) {
      return i;
    }
  }
  return -1;
}

static inline int hc_bad(mjtNum x) {
  return x != x || x > mjMAXVAL || x < -mjMAXVAL;
}

// hc_check_state reports a NaN/Inf/huge qpos or qvel entry (mju_isBad).
static inline int hc_check_state(const mjModel* m, const mjData* d, hcStatus* st) {
  for (int i = 0; i < m->nq; i++) {
    if (hc_bad(d->qpos[i])) {
      st->code = HC_BADSTATE;
      st->info = i;
      st->isvel = 0;
      return HC_BADSTATE;
    }
  }
  for (int i = 0; i < m->nv; i++) {
    if (hc_bad(d->qvel[i])) {
      st->code = HC_BADSTATE;
      st->info = i;
      st->isvel = 1;
      return HC_BADSTATE;
    }
  }
  return HC_OK;
}

// hc_step_loop runs n mj_step calls and stops at the first warning. It
// clears the warning counters first, so every call reports only its own
// warnings (MuJoCo's automatic reset after a bad qpos/qvel/qacc clears and
// then re-raises the counter, so it is still seen).
static inline int hc_step_loop(const mjModel* m, mjData* d, int n, hcStatus* st) {
  memset(d->warning, 0, sizeof(d->warning));
  for (int k = 0; k < n; k++) {
    mj_step(m, d);
    int w = hc_first_warning(d);
    if (w >= 0) {
      st->code = HC_WARNING;
      st->warning = w;
      st->info = d->warning[w].lastinfo;
      st->substep = k;
      return HC_WARNING;
    }
  }
  st->substep = n > 0 ? n - 1 : 0;
  return hc_check_state(m, d, st);
}

// hc_step runs hc_step_loop; with post != 0 and no problem it then calls
// mj_rnePostConstraint once (cacc, cfrc_int, cfrc_ext), as Gymnasium's
// do_simulation does after its mj_step calls.
int hc_step(const mjModel* m, mjData* d, int n, int post, hcStatus* st) {
  int code = HC_OK;
  HC_GUARDED(st, {
    code = hc_step_loop(m, d, n, st);
    if (code == HC_OK && post) {
      mj_rnePostConstraint(m, d);
    }
  });
  return code;
}

int hc_forward(const mjModel* m, mjData* d, hcStatus* st) {
  HC_GUARDED(st, mj_forward(m, d));
  return HC_OK;
}

int hc_reset(const mjModel* m, mjData* d, hcStatus* st) {
  HC_GUARDED(st, mj_resetData(m, d));
  return HC_OK;
}

// hc_step_raw is the bare physics loop: n mj_step calls, nothing else.
int hc_step_raw(const mjModel* m, mjData* d, long n, hcStatus* st) {
  HC_GUARDED(st, for (long k = 0; k < n; k++) mj_step(m, d));
  return HC_OK;
}

// hc_bench_env is the bare C version of an environment's stepping work: for
// each of nenv environment steps, copy one action (cycling through nact rows
// of m->nu values) into ctrl and call mj_step frame_skip times. Every
// `episode` steps (if > 0) it runs mj_resetData, then, if ninit > 0, copies
// the next row of init (nq qpos values then nv qvel values, cycling) into
// the state, and runs mj_forward. No Go code runs in between.
static int hc_bench_env_loop(const mjModel* m, mjData* d, long nenv, int frame_skip,
                             int episode, const mjtNum* actions, int nact,
                             const mjtNum* init, int ninit) {
  int row = 0, irow = 0;
  for (long t = 0; t < nenv; t++) {
    if (episode > 0 && t % episode == 0) {
      mj_resetData(m, d);
      if (ninit > 0) {
        const mjtNum* s = init + (long)irow * (m->nq + m->nv);
        memcpy(d->qpos, s, sizeof(mjtNum) * m->nq);
        memcpy(d->qvel, s + m->nq, sizeof(mjtNum) * m->nv);
        if (++irow == ninit) {
          irow = 0;
        }
      }
      mj_forward(m, d);
    }
    memcpy(d->ctrl, actions + (long)row * m->nu, sizeof(mjtNum) * m->nu);
    if (++row == nact) {
      row = 0;
    }
    for (int k = 0; k < frame_skip; k++) {
      mj_step(m, d);
    }
  }
  return HC_OK;
}

int hc_bench_env(const mjModel* m, mjData* d, long nenv, int frame_skip,
                 int episode, const mjtNum* actions, int nact,
                 const mjtNum* init, int ninit, hcStatus* st) {
  int code = HC_OK;
  HC_GUARDED(st, code = hc_bench_env_loop(m, d, nenv, frame_skip, episode, actions, nact,
                                          init, ninit));
  return code;
}

//---------------------------------- introspection -------------------------------------------------

// Type codes for hc_model_field.
enum { HC_T_NUM = 0, HC_T_INT = 1, HC_T_BYTE = 2, HC_T_FLOAT = 3, HC_T_CHAR = 4 };

#define HC_TYPECODE(x) _Generic((x), \
  mjtNum: HC_T_NUM,                  \
  int: HC_T_INT,                     \
  mjtByte: HC_T_BYTE,                \
  float: HC_T_FLOAT,                 \
  char: HC_T_CHAR)

#undef MJ_M
#define MJ_M(n) m->n

int hc_model_field(const mjModel* m, const char* name, void** ptr, int* type,
                   int* nr, int* nc) {
#define X(TYPE, NAME, NR, NC)                 \
  if (strcmp(name, #NAME) == 0) {             \
    *ptr = (void*)m->NAME;                    \
    *type = HC_TYPECODE(m->NAME[0]);          \
    *nr = m->NR;                              \
    *nc = NC;                                 \
    return 1;                                 \
  }
  MJMODEL_POINTERS
#undef X
  return 0;
}

static const char* hc_field_names[] = {
#define X(TYPE, NAME, NR, NC) #NAME,
  MJMODEL_POINTERS
#undef X
  NULL
};

const char* hc_model_field_name(int i) {
  int n = sizeof(hc_field_names) / sizeof(hc_field_names[0]) - 1;
  if (i < 0 || i >= n) {
    return NULL;
  }
  return hc_field_names[i];
}

// hc_guard runs fn(arg) with mju_error turned into HC_ERROR and its message
// in st (for code outside this file, such as the renderer).
int hc_guard(hcStatus* st, hc_fn fn, void* arg) {
  int rc = HC_OK;
  HC_GUARDED(st, rc = fn(arg));
  if (rc != HC_OK) {
    st->code = rc;
  }
  return rc;
}
