/* SPDX-License-Identifier: ISC */
/* egressctl entry point (start-up scaffolding; replaced by the daemon). */
#include <stdio.h>

int
main(void)
{
	fprintf(stderr, "egressctl: not built yet\n");
	return 1;
}
