#include "baseline.h"
int baseline_version(void) { return 1; }
