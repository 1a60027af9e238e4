package ppo

/*
#include <dlfcn.h>
#include <stdlib.h>

// openblasCorename is openblas_get_corename() of the loaded OpenBLAS, or
// NULL when the BLAS is not OpenBLAS.
static const char *openblasCorename(void) {
	char *(*f)(void) = (char *(*)(void))dlsym(RTLD_DEFAULT, "openblas_get_corename");
	return f ? f() : NULL;
}

// openblasReselect makes a DYNAMIC_ARCH OpenBLAS choose its core again,
// reading OPENBLAS_CORETYPE as it did when it loaded (gotoblas_dynamic_quit
// forgets the core, gotoblas_dynamic_init picks one and sets its
// parameters). It returns 0 when the BLAS has no such entry points.
static int openblasReselect(void) {
	void (*quit)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit");
	void (*init)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init");
	if (!quit || !init) return 0;
	quit();
	init();
	return 1;
}
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/cpu"
)

// The float kernels a run computes with. The same seed and config give the
// same run, bit for bit, only on the same kernels: OpenBLAS with DYNAMIC_ARCH
// (Debian's) picks its sgemm kernel by CPU, and libtorch picks the
// vectorisation of its own ops (tanh, reductions, Adam) by CPU. On an AMD EPYC
// with AVX-512 the defaults (OpenBLAS SkylakeX) trained a different
// HalfCheetah run from the first iteration than the Intel Xeon that trained
// the committed results; with these two pinned, the EPYC reproduced a
// committed 1M-frame run's 489 train.csv and 49 eval.csv rows exactly
// (results/population, scripts/population-compare.sh with RETRAIN=1).
// ATen's avx512 kernels, and its unvectorised default, gave different rows
// again, so both variables are needed.
const (
	// BLASKernel is the OpenBLAS core type hyperctl pins (OPENBLAS_CORETYPE):
	// AVX2 and FMA, which every x86-64 CPU since 2013-2015 has.
	BLASKernel = "Haswell"
	// ATenCapability is the libtorch CPU capability hyperctl pins
	// (ATEN_CPU_CAPABILITY).
	ATenCapability = "avx2"
)

// The kernel settings a process can run with (hyperctl's --kernels).
const (
	// KernelsPinned pins OpenBLAS's Haswell kernels and ATen's avx2
	// (PinnedEnv): the same run, bit for bit, on every x86-64 CPU with AVX2
	// and FMA. The default.
	KernelsPinned = "pinned"
	// KernelsNative leaves both libraries their own choice for the CPU
	// (neither variable set): runs are exact only on CPUs that choose the
	// same kernels.
	KernelsNative = "native"
)

// KernelsEnvVar chooses the kernel setting when no --kernels flag does.
const KernelsEnvVar = "HYPERCTL_KERNELS"

// CheckKernelsMode returns an error naming the valid settings unless mode
// is one of them.
func CheckKernelsMode(mode string) error {
	if mode != KernelsPinned && mode != KernelsNative {
		return fmt.Errorf("kernels %q: want %s or %s", mode, KernelsPinned, KernelsNative)
	}
	return nil
}

// pinCapable reports whether this CPU has the pinned kernels.
func pinCapable() bool { return runtime.GOARCH == "amd64" && cpu.X86.HasAVX2 && cpu.X86.HasFMA }

// PinnedEnv returns environ with the variables that pin the float kernels
// (OPENBLAS_CORETYPE=Haswell, ATEN_CPU_CAPABILITY=avx2) added, or nil when
// nothing needs adding: both are set already (a user's own choice is kept),
// or the CPU is not x86-64 with AVX2 and FMA (its runs are then exact on
// that machine only). Both libraries read the variables when they load; a
// process that cannot apply them in place (ApplyKernels) re-executes itself
// with this environment.
func PinnedEnv(environ []string) []string { return pinnedEnv(environ, pinCapable()) }

// KernelsEnv returns environ for the kernel setting mode, or nil when it
// needs no change: PinnedEnv for KernelsPinned; for KernelsNative, environ
// without OPENBLAS_CORETYPE and ATEN_CPU_CAPABILITY.
func KernelsEnv(environ []string, mode string) []string {
	if mode == KernelsPinned {
		return PinnedEnv(environ)
	}
	var out []string
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "OPENBLAS_CORETYPE=") && !strings.HasPrefix(kv, "ATEN_CPU_CAPABILITY=") {
			out = append(out, kv)
		}
	}
	if len(out) == len(environ) {
		return nil
	}
	return out
}

// ApplyKernels puts this process on the kernel setting mode without
// starting it again, and reports whether it could. It sets (or, native,
// removes) the two variables in the environment, which child processes
// inherit; makes OpenBLAS choose its core again, which it otherwise does
// only when it loads; and checks that OpenBLAS now runs the setting's core
// and, pinned, that ATen (which reads ATEN_CPU_CAPABILITY at its first
// vectorised op, not when it loads) runs avx2. It must run before any
// float computation. When it returns false, the caller re-executes itself
// with KernelsEnv(os.Environ(), mode), which the libraries read as they
// load.
func ApplyKernels(mode string) bool {
	env := KernelsEnv(os.Environ(), mode)
	if env == nil {
		return true // the libraries loaded with this setting
	}
	want := map[string]string{}
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == "OPENBLAS_CORETYPE" || k == "ATEN_CPU_CAPABILITY" {
			want[k] = v
		}
	}
	for _, k := range []string{"OPENBLAS_CORETYPE", "ATEN_CPU_CAPABILITY"} {
		var err error
		if v, ok := want[k]; ok {
			err = os.Setenv(k, v)
		} else {
			err = os.Unsetenv(k)
		}
		if err != nil {
			return false
		}
	}
	if C.openblasCorename() != nil {
		if C.openblasReselect() == 0 {
			return false
		}
		if v, ok := want["OPENBLAS_CORETYPE"]; ok && !strings.EqualFold(C.GoString(C.openblasCorename()), v) {
			return false
		}
	}
	if v, ok := want["ATEN_CPU_CAPABILITY"]; ok && !strings.EqualFold(atenCapability(), v) {
		return false
	}
	return true
}

// pinnedEnv is PinnedEnv for a CPU that has (or lacks) the pinned kernels.
func pinnedEnv(environ []string, capable bool) []string {
	if !capable {
		return nil
	}
	var add []string
	for _, kv := range [][2]string{{"OPENBLAS_CORETYPE", BLASKernel}, {"ATEN_CPU_CAPABILITY", ATenCapability}} {
		if !hasEnv(environ, kv[0]) {
			add = append(add, kv[0]+"="+kv[1])
		}
	}
	if add == nil {
		return nil
	}
	return append(append([]string(nil), environ...), add...)
}

// hasEnv reports whether environ sets key (to anything, even "").
func hasEnv(environ []string, key string) bool {
	for _, kv := range environ {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}

// Kernels describes the float kernels of this process, for a run's log:
// OpenBLAS's core (openblas_get_corename; "not OpenBLAS" for another BLAS)
// and ATEN_CPU_CAPABILITY ("unset": libtorch's choice for the CPU).
func Kernels() string {
	blas := "not OpenBLAS"
	if p := C.openblasCorename(); p != nil {
		blas = C.GoString(p)
	}
	aten, ok := os.LookupEnv("ATEN_CPU_CAPABILITY")
	if !ok {
		aten = "unset"
	}
	return "OpenBLAS " + blas + ", ATEN_CPU_CAPABILITY " + aten
}
