/* SPDX-License-Identifier: ISC */
/* egressd entry point (start-up scaffolding; replaced by the daemon). */
#include <stdio.h>

int
main(void)
{
	fprintf(stderr, "egressd: not built yet\n");
	return 1;
}
