/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: machine and kernel profiles (INI through libinih).
 * Each input is parsed as a profile, then given to both typed views, as
 * 'mmsim --machine FILE' and '--kernel FILE' would; a machine's topology
 * string is only read here, not built.  Like mmsim, it copies a profile only
 * once a view derived from it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile prof, copy;
	struct hw_profile hw;
	struct kernel_profile kern;
	struct mm_error err;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (!profile_parse(&prof, "fuzz.conf", text, &err)) {
		int hw_ok = !hw_profile_derive(&hw, &prof, &err);
		int kern_ok = !kernel_profile_derive(&kern, &prof, &err);

		if (hw_ok)
			hw_freq_ghz(&hw, 1);
		/* mmsim copies only profiles that derived (--sensitivity, calibrate) */
		if ((hw_ok || kern_ok) && !profile_copy(&copy, &prof))
			profile_free(&copy);
		profile_free(&prof);
	}
	free(text);
	return 0;
}
