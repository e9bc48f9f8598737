/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: its log, one line per event on stderr ("pktstats-exporter: switch s0:
 * device up: ..."), written with one call so that the threads' lines never mix. systemd's
 * journal and any supervisor take stderr as it is; no timestamps of our own (the journal adds
 * them).
 */
#ifndef PKTSTATS_EXPORTER_LOG_H
#define PKTSTATS_EXPORTER_LOG_H

void exporter_log(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif
