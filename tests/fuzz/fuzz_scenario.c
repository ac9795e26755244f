/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness: the scenario language.  Each input is parsed as a
 * scenario file; one that parses is compiled, variant by variant, against
 * the builtin kernel profile it names (or linux-5.11), as 'mmsim --scenario
 * FILE' would.  Errors are expected; crashes, leaks and sanitizer reports
 * are what the fuzzer looks for.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "profile.h"
#include "scenario.h"

#define MAX_KERNELS 16

/* The builtin kernel profiles, loaded once: parsing them for every input would dominate. */
static struct profile prof[MAX_KERNELS];
static struct kernel_profile kern[MAX_KERNELS];
static int nkern = -1;

static void load_kernels(void)
{
	const char *const *names = profile_builtin_names("kernels");
	struct mm_error err;

	for (nkern = 0; names[nkern]; nkern++)
		if (nkern == MAX_KERNELS || profile_load(&prof[nkern], "kernels", names[nkern], &err) ||
		    kernel_profile_derive(&kern[nkern], &prof[nkern], &err))
			abort(); /* the builtin profiles always load */
}

/* The kernel profile 'linux-VERSION' of the variant, or the first builtin one. */
static const struct kernel_profile *kernel_of(const struct scenario *sc, int v)
{
	char name[64];

	snprintf(name, sizeof(name), "linux-%s", sc->var[v].kernel);
	for (int i = 0; i < nkern; i++)
		if (!strcmp(prof[i].name, name) || !strcmp(kern[i].name, name))
			return &kern[i];
	return &kern[0];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario sc;
	struct mm_error err;
	char *text;

	if (nkern < 0)
		load_kernels();
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (!scenario_parse(&sc, "fuzz.scn", text, &err)) {
		for (int v = 0; v < sc.nvar; v++) {
			struct program prog;
			struct op_counts c;

			if (scenario_compile(&sc, v, kernel_of(&sc, v), &prog, &err))
				continue;
			op_counts(&prog, "mmap_lock", &c);
			program_rarest_visits(&prog);
			program_free(&prog);
		}
		scenario_free(&sc);
	}
	free(text);
	return 0;
}
