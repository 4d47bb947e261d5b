/* base/interrupt.c: see base/interrupt.h. */
#include "base/interrupt.h"

volatile sig_atomic_t lk_interrupted;
