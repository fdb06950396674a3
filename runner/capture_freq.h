/* capture_freq.h: perf's sampling frequency of a finished capture, for
 * `flamepipe push` (Pyroscope's sampleRate: each sample is 1/F s of CPU).
 *
 * perf script text: its header (`perf script --header`, as
 * tools/capture-*.sh write it) has `# event : name = E, ... { sample_period,
 * sample_freq } = N, ... freq = 1` per event; perf.data: the attribute
 * section (perf_event_attr's sample_freq and its freq bit). The first event
 * that is not perf's dummy event and was sampled by frequency gives F.
 *
 *	uint64_t hz = fp_capture_freq(path);	// 0: not known
 */
#ifndef FP_CAPTURE_FREQ_H
#define FP_CAPTURE_FREQ_H

#include <stdint.h>

uint64_t fp_capture_freq(const char *path);

#endif
