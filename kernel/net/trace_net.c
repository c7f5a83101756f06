// SPDX-License-Identifier: GPL-2.0
/* The transport's tracepoints (trace_net.h), apart so every file may use them. */
#define CREATE_TRACE_POINTS
#include "trace_net.h"
