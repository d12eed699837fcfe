package ppg

// The exported side of Engine.Train's callback. A file with //export may declare but
// not define C functions in its preamble, so the C shim that calls it lives in ppg.go.

/*
#include <stddef.h>
#include <stdint.h>
*/
import "C"

import (
	"math"
	"runtime/cgo"
	"unsafe"
)

// trainContext is what the C callback's `void *user` refers to, through a cgo.Handle
// (Go pointers cannot be kept by C).
type trainContext struct {
	objective func(ranking []uint64, sessions int) float64
	panicked  bool
	panicVal  any
}

// ppgGoCost is the ppg_cost_fn behind Engine.Train. A panic must not unwind through the
// library, so it is recovered here and turned into NaN, which makes ppg_engine_train
// stop and restore the engine; Train re-panics with the same value afterwards.
//
//export ppgGoCost
func ppgGoCost(ranking *C.uint64_t, length C.size_t, sessions C.size_t, user C.uintptr_t) (cost C.double) {
	ctx := cgo.Handle(user).Value().(*trainContext)
	defer func() {
		if r := recover(); r != nil {
			ctx.panicked = true
			ctx.panicVal = r
			cost = C.double(math.NaN())
		}
	}()
	// A view of the engine's memory, valid during this call only.
	ids := unsafe.Slice((*uint64)(unsafe.Pointer(ranking)), int(length))
	return C.double(ctx.objective(ids, int(sessions)))
}
