/* SPDX-License-Identifier: MIT */
/* A planted backwards include: the engine layer includes the sim layer (check_layers must fail). */
#include "engine.h"
#include "sim.h"
