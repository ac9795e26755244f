/* SPDX-License-Identifier: MIT */
#include "mm_error.h"
