/* SPDX-License-Identifier: MIT */
/*
 * A harness with a planted bug: an input that starts with "BUG" reads one
 * byte past a heap buffer.  The fuzz_selftest test expects run.cmake to fail
 * on it with AddressSanitizer's report, so the smoke tests are known to
 * fail when a harness finds something.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy;
	volatile char past;

	if (size < 3 || memcmp(data, "BUG", 3))
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	past = copy[size];
	(void)past;
	free(copy);
	return 0;
}
