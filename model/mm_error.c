/* SPDX-License-Identifier: MIT */
#include "mm_error.h"

#include <stdarg.h>
#include <stdio.h>

const char *mm_strerror(int code)
{
	switch (code) {
#define MM_ERR_TEXT(name, c, text) \
	case c:                    \
		return text;
		MM_ERRORS(MM_ERR_TEXT)
#undef MM_ERR_TEXT
	}
	return code == 0 ? "success" : "unknown error";
}

const char *mm_errname(int code)
{
	switch (code) {
#define MM_ERR_NAME(name, c, text) \
	case c:                    \
		return #name;
		MM_ERRORS(MM_ERR_NAME)
#undef MM_ERR_NAME
	}
	return code == 0 ? "OK" : "E?";
}

int mm_fail(struct mm_error *e, int code, const char *fmt, ...)
{
	if (e) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
		e->code = code;
	}
	return code;
}
