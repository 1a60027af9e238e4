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
*/
import "C"

import (
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

// PinnedEnv returns environ with the variables that pin the float kernels
// (OPENBLAS_CORETYPE=Haswell, ATEN_CPU_CAPABILITY=avx2) added, or nil when
// nothing needs adding: both are set already (a user's own choice is kept),
// or the CPU is not x86-64 with AVX2 and FMA (its runs are then exact on
// that machine only). Both libraries read the variables when they load, so
// a command calls it first thing and, when it is not nil, re-executes
// itself with it (cmd/hyperctl does).
func PinnedEnv(environ []string) []string {
	return pinnedEnv(environ, runtime.GOARCH == "amd64" && cpu.X86.HasAVX2 && cpu.X86.HasFMA)
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
