#ifndef SECTIONCTL_BASELINE_H
#define SECTIONCTL_BASELINE_H
/// Placeholder; the benchmark's C baseline is written here.
int baseline_version(void);
#endif
