/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats plot: queue occupancy over time from stat packets, drawn by gnuplot into a PNG; with
 * --sojourn, the frames' queueing delay instead (sojourn.h): its distribution per queue (CDF)
 * and its range over time.
 *
 * The captures are read twice through stat_reader: once in summary mode for the time span and
 * the largest occupancy (which fix the axes and their units), once with events, folding every
 * queue's step function into PLOT_BUCKETS time buckets that keep its lowest, highest and last
 * occupancy and its drops. A bucket is narrower than a pixel of the plot, so the band between
 * lowest and highest is what the queue did, however many events the capture holds, and the
 * data gnuplot reads stays small. Drops are marked at the occupancy their bucket reached.
 * --sojourn's picture goes the same way with the delays of the frames in its buckets: one
 * driver (plot_picture()) for both, each picture a struct plot_kind.
 *
 * Axes: time since the first stat packet's first timestamp, in us, ms or s to suit the span;
 * occupancy in bytes or KiB (the hardware counts 64-bit words: bytes = words * 8).
 */
#define _DEFAULT_SOURCE /* mkdtemp */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "decode_cmd.h"
#include "output.h"
#include "sojourn_stats.h"
#include "stat_reader.h"

#define PLOT_BUCKETS 2000

struct bucket {
	int64_t low, high; /* occupancy range in words; low > high: no data yet */
	int64_t last;      /* the value at the bucket's end */
	uint64_t drops;
};

/* A queue's lowest and highest delay per time step (by departure), ns; low > high: none. */
struct delay_bucket {
	uint64_t low, high;
};

struct queue_plot {
	void *buckets;     /* PLOT_BUCKETS of the picture's kind: struct bucket, delay_bucket */
	bool seen;         /* it has a value (from a packet's queue sizes or an event) */
	uint64_t drops;
};

struct plot {
	uint64_t first_ns, span_ns;
	struct queue_plot queues[PKTSTATS_QUEUES];
};

/* What one picture needs once the captures are read: written into data files per queue, then
 * drawn by a script (plot_output()). */
struct plot_job {
	const struct plot *plot;
	uint32_t queues;                     /* the queues drawn: selected, with data */
	const char *out, *title;
	const char *time_unit, *value_unit;  /* the axes' units, and the scales from ns and */
	double time_scale, value_scale;      /* from bytes (occupancy) or ns (delay) */
	const struct sojourn_stats *stats;   /* --sojourn: the delays */
};

/* What the command line and pass 1 give the picture. */
struct plot_request {
	const char *const *files;
	size_t n_files;
	struct stat_reader_options *options;
	uint32_t queue_mask;                 /* the queues selected */
	const struct pktstats_summary *summary;
	const char *out, *title, *keep;      /* -o, --title (or NULL), --data (or NULL) */
};

/* What makes one kind of picture (queue occupancy; --sojourn's queueing delay): its time
 * steps, what pass 2 puts in them, which queues have something to draw, their data files and
 * the script that draws them. plot_picture() drives both. */
struct plot_kind {
	size_t bucket_size;
	const void *empty_bucket;
	/* Pass 2: one record of the captures into the time steps */
	void (*add)(struct plot *plot, const struct stat_record *rec, uint32_t queue_mask);
	bool (*has_data)(const struct plot_job *job, unsigned q);
	int (*write_queue)(const struct plot_job *job, unsigned q, const char *dir);
	int (*draw)(const struct plot_job *job, const char *dir, char *error, size_t error_size);
};

static size_t bucket_of(const struct plot *plot, uint64_t time_ns)
{
	if (time_ns <= plot->first_ns || plot->span_ns == 0)
		return 0;
	uint64_t offset = time_ns - plot->first_ns;
	size_t b = (size_t)((double)offset / (double)plot->span_ns * (PLOT_BUCKETS - 1));
	return b < PLOT_BUCKETS ? b : PLOT_BUCKETS - 1;
}

static void note(struct plot *plot, unsigned q, uint64_t time_ns, int64_t occupancy)
{
	struct queue_plot *queue = &plot->queues[q];
	struct bucket *b = (struct bucket *)queue->buckets + bucket_of(plot, time_ns);
	queue->seen = true;
	b->last = occupancy;
	if (b->low > b->high) {
		b->low = b->high = occupancy;
	} else {
		if (occupancy < b->low)
			b->low = occupancy;
		if (occupancy > b->high)
			b->high = occupancy;
	}
}

/* Pass 2 of the occupancy: a stat packet's queue sizes and events into the buckets. */
static void add_occupancy(struct plot *plot, const struct stat_record *rec, uint32_t queue_mask)
{
	if (rec->status != STAT_RECORD_PACKET)
		return; /* reported by the first pass */
	const struct pktstats_packet *packet = &rec->result.packet;
	uint64_t start_ns = (packet->start_tick << packet->resolution) * PKTSTATS_CLOCK_NS;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		if (queue_mask >> q & 1)
			note(plot, q, start_ns, packet->queue_size[q]);
	for (size_t i = 0; i < rec->n_events; i++) {
		const struct pktstats_event *e = &rec->events[i];
		if (!(queue_mask >> e->queue & 1))
			continue;
		note(plot, e->queue, e->time_ns, e->occupancy);
		if (e->type == PKTSTATS_EVENT_DROP) {
			struct bucket *buckets = plot->queues[e->queue].buckets;
			buckets[bucket_of(plot, e->time_ns)].drops++;
			plot->queues[e->queue].drops++;
		}
	}
}

/* Pass 2: the captures again, with their events, each record into the buckets (kind->add). */
static int fill(const struct plot_kind *kind, struct plot *plot, const char *const *files,
		size_t n_files, const struct stat_reader_options *options, uint32_t queue_mask,
		char *error, size_t error_size)
{
	struct stat_reader *reader;
	int err = stat_reader_open(&reader, files, n_files, options, error, error_size);
	if (err < 0)
		return err;
	struct stat_record rec;
	while ((err = stat_reader_next(reader, &rec)) != 0)
		if (err > 0) /* errors: reported by the first pass */
			kind->add(plot, &rec, queue_mask);
	stat_reader_close(reader);
	return 0;
}

/* Opens DIR/<first>Q.dat and DIR/<second>Q.dat for writing: 0, or -errno with neither open. */
static int open_data_files(const char *dir, unsigned q, const char *first, const char *second,
			   FILE **a, FILE **b)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s%u.dat", dir, first, q);
	*a = fopen(path, "w");
	snprintf(path, sizeof path, "%s/%s%u.dat", dir, second, q);
	*b = fopen(path, "w");
	if (*a && *b)
		return 0;
	int err = -errno;
	if (*a)
		fclose(*a);
	if (*b)
		fclose(*b);
	return err;
}

/* Closes both: 0, or -EIO when either was not written whole. */
static int close_data_files(FILE *a, FILE *b)
{
	int err = ferror(a) || ferror(b) ? -EIO : 0;
	if (fclose(a) != 0)
		err = -EIO;
	if (fclose(b) != 0)
		err = -EIO;
	return err;
}

/* Writes queue q's buckets: time, low, high (scaled), and its drops: time, high. */
static int write_data(const struct plot_job *job, unsigned q, const char *dir)
{
	FILE *data, *drops;
	int err = open_data_files(dir, q, "queue", "drops", &data, &drops);
	if (err)
		return err;
	const struct plot *plot = job->plot;
	const double time_scale = job->time_scale, size_scale = job->value_scale;
	const struct bucket *buckets = plot->queues[q].buckets;
	/* Buckets without an event keep the step function's value from before. */
	int64_t last = -1;
	for (size_t b = 0; b < PLOT_BUCKETS; b++) {
		const struct bucket *bucket = &buckets[b];
		double t = (double)plot->span_ns * (double)b / (PLOT_BUCKETS - 1) * time_scale;
		int64_t low = bucket->low, high = bucket->high;
		if (low > high) {
			if (last < 0)
				continue;
			low = high = last;
		} else if (last >= 0) {
			if (last < low)
				low = last; /* the value held until the bucket's first change */
			if (last > high)
				high = last;
		}
		fprintf(data, "%.9g %.9g %.9g\n", t, STAT_BYTES(low) * size_scale,
			STAT_BYTES(high) * size_scale);
		if (bucket->drops)
			fprintf(drops, "%.9g %.9g\n", t, STAT_BYTES(high) * size_scale);
		if (bucket->low <= bucket->high)
			last = bucket->last;
	}
	return close_data_files(data, drops);
}

/* Axis units that suit the values: the divisor's name and the scale from ns / bytes. */
static const char *time_unit(uint64_t span_ns, double *scale)
{
	if (span_ns < 10000000) {
		*scale = 1e-3;
		return "\302\265s";
	}
	if (span_ns < UINT64_C(10000000000)) {
		*scale = 1e-6;
		return "ms";
	}
	*scale = 1e-9;
	return "s";
}

static const char *size_unit(int64_t max_words, double *scale)
{
	if (STAT_BYTES(max_words) >= 8192) {
		*scale = 1.0 / 1024;
		return "KiB";
	}
	*scale = 1;
	return "bytes";
}

/* DIR/plot.gp, opened for the script: NULL with the reason in error. */
static FILE *open_script(const char *dir, char *error, size_t error_size)
{
	char path[256];
	snprintf(path, sizeof path, "%s/plot.gp", dir);
	FILE *gp = fopen(path, "w");
	if (!gp)
		snprintf(error, error_size, "%s: %s", path, strerror(errno));
	return gp;
}

/* Closes the script and runs gnuplot on it, its messages in DIR/gnuplot.log. 0, or a negative
 * errno with the reason in error. */
static int run_script(FILE *gp, const char *dir, char *error, size_t error_size)
{
	char path[256], log[256];
	snprintf(path, sizeof path, "%s/plot.gp", dir);
	if (fclose(gp) != 0) {
		snprintf(error, error_size, "%s: %s", path, strerror(errno));
		return -EIO;
	}
	snprintf(log, sizeof log, "%s/gnuplot.log", dir);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(error, error_size, "fork: %s", strerror(errno));
		return -errno;
	}
	if (pid == 0) {
		if (!freopen(log, "w", stderr) || !freopen("/dev/null", "w", stdout))
			_exit(126);
		execlp("gnuplot", "gnuplot", path, (char *)NULL);
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		snprintf(error, error_size, "gnuplot is not installed (make deps installs gnuplot-nox)");
		return -ENOENT;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char line[256] = "";
		FILE *f = fopen(log, "r");
		while (f && fgets(line, sizeof line, f) && (line[0] == '\n' || line[0] == ' '))
			;
		if (f)
			fclose(f);
		line[strcspn(line, "\n")] = '\0';
		snprintf(error, error_size, "gnuplot failed: %s", line[0] ? line : "no message");
		return -EIO;
	}
	return 0;
}
/* Writes the gnuplot script and runs gnuplot on it. 0, or a negative errno. */
static int draw(const struct plot_job *job, const char *dir, char *error, size_t error_size)
{
	FILE *gp = open_script(dir, error, error_size);
	if (!gp)
		return -EIO;
	const struct plot *plot = job->plot;
	fprintf(gp, "set terminal pngcairo size 1600,900 font 'sans,11'\n");
	fprintf(gp, "set output '%s'\n", job->out);
	fprintf(gp, "set title \"%s\" noenhanced\n", job->title);
	fprintf(gp, "set xlabel 'time since the first stat packet (%s)'\n", job->time_unit);
	fprintf(gp, "set ylabel 'queue occupancy (%s)'\n", job->value_unit);
	fprintf(gp, "set grid\nset key outside right top\nset yrange [0:*]\n");
	fprintf(gp, "plot ");
	const char *separator = "";
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		if (!(job->queues >> q & 1))
			continue;
		/* The band between lowest and highest per bucket, its top as a line, drops on it */
		fprintf(gp,
			"%s'%s/queue%u.dat' using 1:2:3 with filledcurves fs transparent solid 0.25 "
			"lc %u notitle, "
			"'%s/queue%u.dat' using 1:3 with lines lw 1.5 lc %u title 'queue %u'",
			separator, dir, q, q + 1, dir, q, q + 1, q);
		if (plot->queues[q].drops)
			fprintf(gp, ", '%s/drops%u.dat' using 1:2 with points pt 2 ps 0.8 lc %u "
				    "title 'queue %u drops (%" PRIu64 ")'",
				dir, q, q + 1, q, plot->queues[q].drops);
		separator = ", \\\n     ";
	}
	fprintf(gp, "\n");
	return run_script(gp, dir, error, error_size);
}


static void remove_work(const char *dir)
{
	const char *names[] = {"plot.gp", "gnuplot.log"};
	char path[256];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	const char *per_queue[] = {"queue%u.dat", "drops%u.dat", "cdf%u.dat", "delay%u.dat"};
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		for (size_t i = 0; i < sizeof per_queue / sizeof per_queue[0]; i++) {
			snprintf(path, sizeof path, "%s/", dir);
			snprintf(path + strlen(path), sizeof path - strlen(path), per_queue[i], q);
			unlink(path);
		}
	rmdir(dir);
}

/* The directory of --data (made if need be), else a temporary one. */
static int work_directory(const char *keep, char *dir, size_t size)
{
	if (keep) {
		snprintf(dir, size, "%s", keep);
		if (mkdir(dir, 0777) != 0 && errno != EEXIST)
			return -errno;
	} else {
		snprintf(dir, size, "/tmp/pktstats-plot.XXXXXX");
		if (!mkdtemp(dir))
			return -errno;
	}
	return 0;
}

/* Writes each drawn queue's data files into the work directory, draws the picture, and
 * removes the directory unless it is kept (--data). CLI_OK, or CLI_RUNTIME said on stderr. */
static int plot_output(const struct plot_job *job, const char *keep,
		       int (*write_queue)(const struct plot_job *, unsigned, const char *),
		       int (*draw_picture)(const struct plot_job *, const char *, char *, size_t))
{
	char dir[200], error[512] = "";
	int err = work_directory(keep, dir, sizeof dir);
	if (err < 0) {
		fprintf(stderr, "pktstats: plot: %s: %s\n", dir, strerror(-err));
		return CLI_RUNTIME;
	}
	int status = CLI_OK;
	for (unsigned q = 0; q < PKTSTATS_QUEUES && status == CLI_OK; q++)
		if (job->queues >> q & 1 && (err = write_queue(job, q, dir)) < 0) {
			fprintf(stderr, "pktstats: plot: %s: %s\n", dir, strerror(-err));
			status = CLI_RUNTIME;
		}
	if (status == CLI_OK && draw_picture(job, dir, error, sizeof error) < 0) {
		fprintf(stderr, "pktstats: plot: %s\n", error);
		status = CLI_RUNTIME;
	}
	if (!keep)
		remove_work(dir);
	return status;
}

/* One picture of the captures that pass 1 summed up: the time steps of their span, pass 2
 * into them (kind->add), the selected queues with something to draw, the time axis, then the
 * data files and the script (plot_output()). `job` comes with its output, title and value
 * axis. CLI_OK, or CLI_RUNTIME said on stderr. */
static int plot_picture(const struct plot_kind *kind, struct plot_job *job,
			const struct plot_request *request)
{
	const struct pktstats_summary *summary = request->summary;
	const uint32_t queue_mask = request->queue_mask;
	int status = CLI_OK;
	char error[512] = "";
	struct plot plot = {.first_ns = summary->first_ns,
			    .span_ns = summary->last_ns > summary->first_ns
					       ? summary->last_ns - summary->first_ns : 0};
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		unsigned char *buckets = malloc(PLOT_BUCKETS * kind->bucket_size);
		plot.queues[q].buckets = buckets;
		if (!buckets) {
			fprintf(stderr, "pktstats: plot: out of memory\n");
			status = CLI_RUNTIME;
			goto done;
		}
		for (size_t b = 0; b < PLOT_BUCKETS; b++)
			memcpy(buckets + b * kind->bucket_size, kind->empty_bucket, kind->bucket_size);
	}
	/* with the events: in summary mode the reader would decode each packet twice */
	request->options->summary_only = false;
	if (fill(kind, &plot, request->files, request->n_files, request->options, queue_mask, error,
		 sizeof error) < 0) {
		fprintf(stderr, "pktstats: plot: %s\n", error);
		status = CLI_RUNTIME;
		goto done;
	}
	job->plot = &plot;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		if (queue_mask >> q & 1 && kind->has_data(job, q))
			job->queues |= 1u << q;
	job->time_unit = time_unit(plot.span_ns, &job->time_scale);
	status = plot_output(job, request->keep, kind->write_queue, kind->draw);
done:
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		free(plot.queues[q].buckets);
	return status;
}

static bool occupancy_has_data(const struct plot_job *job, unsigned q)
{
	return job->plot->queues[q].seen;
}

static const struct bucket no_occupancy = {.low = 1, .high = 0};

static const struct plot_kind occupancy_kind = {
	.bucket_size = sizeof(struct bucket),
	.empty_bucket = &no_occupancy,
	.add = add_occupancy,
	.has_data = occupancy_has_data,
	.write_queue = write_data,
	.draw = draw,
};

/* The queues' occupancy over time: the value axis in bytes or KiB to suit the largest. */
static int plot_occupancy(const struct plot_request *request)
{
	const struct pktstats_summary *summary = request->summary;
	int64_t max_words = 0;
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++)
		if (request->queue_mask >> q & 1 && summary->queues[q].max_occupancy > max_words)
			max_words = summary->queues[q].max_occupancy;
	char default_title[256];
	snprintf(default_title, sizeof default_title, "%s: queue occupancy from %" PRIu64
		 " stat packets", request->files[0], summary->packets);
	struct plot_job job = {.out = request->out,
			       .title = request->title ? request->title : default_title};
	job.value_unit = size_unit(max_words, &job.value_scale);
	return plot_picture(&occupancy_kind, &job, request);
}

/* ------------------------------------------------------------------------------------------ */
/* --sojourn                                                                                  */

#define CDF_POINTS 2000

/* Pass 2 of --sojourn: each timed frame's delay into the time step of its departure (every
 * queue's: those not drawn are not written). */
static void add_delays(struct plot *plot, const struct stat_record *rec, uint32_t queue_mask)
{
	(void)queue_mask;
	for (size_t i = 0; i < rec->n_sojourns; i++) {
		const struct pktstats_sojourn *x = &rec->sojourns[i];
		struct delay_bucket *buckets = plot->queues[x->queue].buckets;
		struct delay_bucket *b = &buckets[bucket_of(plot, x->departure_ns)];
		if (b->low > b->high) {
			b->low = b->high = x->delay_ns;
		} else {
			if (x->delay_ns < b->low)
				b->low = x->delay_ns;
			if (x->delay_ns > b->high)
				b->high = x->delay_ns;
		}
	}
}

/* cdfQ.dat (delay, fraction of the queue's frames at most that delay: every frame, or
 * CDF_POINTS quantiles) and delayQ.dat (time, lowest, highest delay per step). */
static int write_delay_data(const struct plot_job *job, unsigned q, const char *dir)
{
	FILE *cdf, *over_time;
	int err = open_data_files(dir, q, "cdf", "delay", &cdf, &over_time);
	if (err)
		return err;
	const struct sojourn_delays *delays = &job->stats->queues[q];
	const struct delay_bucket *buckets = job->plot->queues[q].buckets;
	const double time_scale = job->time_scale, delay_scale = job->value_scale;
	size_t points = delays->n < CDF_POINTS ? delays->n : CDF_POINTS;
	for (size_t i = 1; i <= points; i++) {
		size_t rank = (size_t)ceil((double)i / (double)points * (double)delays->n);
		fprintf(cdf, "%.9g %.9g\n", (double)delays->delay_ns[rank - 1] * delay_scale,
			(double)rank / (double)delays->n);
	}
	for (size_t b = 0; b < PLOT_BUCKETS; b++)
		if (buckets[b].low <= buckets[b].high)
			fprintf(over_time, "%.9g %.9g %.9g\n",
				(double)job->plot->span_ns * (double)b / (PLOT_BUCKETS - 1) * time_scale,
				(double)buckets[b].low * delay_scale, (double)buckets[b].high * delay_scale);
	return close_data_files(cdf, over_time);
}

/* The picture: the CDFs above, the delay over time below. */
static int draw_sojourn(const struct plot_job *job, const char *dir, char *error,
			size_t error_size)
{
	FILE *gp = open_script(dir, error, error_size);
	if (!gp)
		return -EIO;
	const struct sojourn_stats *stats = job->stats;
	const char *t_unit = job->time_unit, *d_unit = job->value_unit;
	fprintf(gp, "set terminal pngcairo size 1600,1200 font 'sans,11'\n");
	fprintf(gp, "set output '%s'\n", job->out);
	fprintf(gp, "set multiplot layout 2,1 title \"%s\" noenhanced\n", job->title);
	fprintf(gp, "set grid\nset key outside right top\n");
	fprintf(gp, "set xlabel 'queueing delay (%s)'\nset ylabel 'fraction of frames'\n", d_unit);
	fprintf(gp, "set yrange [0:1]\nset xrange [0:*]\nplot ");
	const char *separator = "";
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		if (!(job->queues >> q & 1))
			continue;
		fprintf(gp, "%s'%s/cdf%u.dat' using 1:2 with steps lw 1.5 lc %u title 'queue %u "
			    "(%zu frames)'", separator, dir, q, q + 1, q, stats->queues[q].n);
		separator = ", \\\n     ";
	}
	fprintf(gp, "\nset xlabel 'departure time since the first stat packet (%s)'\n", t_unit);
	fprintf(gp, "set ylabel 'queueing delay (%s)'\nset yrange [0:*]\nset autoscale x\nplot ",
		d_unit);
	separator = "";
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		if (!(job->queues >> q & 1))
			continue;
		fprintf(gp, "%s'%s/delay%u.dat' using 1:2:3 with filledcurves fs transparent solid "
			    "0.25 lc %u notitle, '%s/delay%u.dat' using 1:3 with lines lw 1.5 lc %u "
			    "title 'queue %u'", separator, dir, q, q + 1, dir, q, q + 1, q);
		separator = ", \\\n     ";
	}
	fprintf(gp, "\nunset multiplot\n");
	return run_script(gp, dir, error, error_size);
}

/* A delay axis unit that suits the largest delay: its name and the scale from ns. */
static const char *delay_unit(uint64_t max_ns, double *scale)
{
	if (max_ns < 10000) {
		*scale = 1;
		return "ns";
	}
	if (max_ns < 10000000) {
		*scale = 1e-3;
		return "\302\265s";
	}
	*scale = 1e-6;
	return "ms";
}

static bool sojourn_has_data(const struct plot_job *job, unsigned q)
{
	return job->stats->queues[q].n != 0;
}

static const struct delay_bucket no_delay = {.low = 1, .high = 0};

static const struct plot_kind sojourn_kind = {
	.bucket_size = sizeof(struct delay_bucket),
	.empty_bucket = &no_delay,
	.add = add_delays,
	.has_data = sojourn_has_data,
	.write_queue = write_delay_data,
	.draw = draw_sojourn,
};

/* The frames' queueing delay: the value axis to suit the longest; the frames that could not
 * be timed counted on stderr. */
static int plot_sojourn(const struct plot_request *request, struct sojourn_stats *stats,
			const struct pktstats_sojourn_counts *counts)
{
	const uint32_t queue_mask = request->queue_mask;
	uint64_t timed = 0, max_ns = 0;
	sojourn_stats_sort(stats);
	for (unsigned q = 0; q < PKTSTATS_QUEUES; q++) {
		if (!(queue_mask >> q & 1) || !stats->queues[q].n)
			continue;
		timed += stats->queues[q].n;
		if (sojourn_stats_percentile(stats, q, 100) > max_ns)
			max_ns = sojourn_stats_percentile(stats, q, 100);
	}
	const uint64_t untimed = counts->queued_before + counts->unsynchronised;
	if (timed == 0) {
		fprintf(stderr, "pktstats: plot: no frame of %s could be timed (%" PRIu64 " "
				"departures in all could not: pktstats decode --summary --sojourn says "
				"why)\n", queue_mask == 0xff ? "any queue" : "the queues selected", untimed);
		return CLI_RUNTIME;
	}
	if (untimed)
		fprintf(stderr, "pktstats: plot: %" PRIu64 " frames could not be timed (pktstats "
				"decode --summary --sojourn says why)\n", untimed);
	char default_title[256];
	snprintf(default_title, sizeof default_title, "%s: queueing delay of %" PRIu64
		 " frames from %" PRIu64 " stat packets", request->files[0], timed,
		 request->summary->packets);
	struct plot_job job = {.out = request->out,
			       .title = request->title ? request->title : default_title,
			       .stats = stats};
	job.value_unit = delay_unit(max_ns, &job.value_scale);
	return plot_picture(&sojourn_kind, &job, request);
}

static int plot_run(struct cli *cli, int argc, char **argv)
{
	const char *out = NULL, *title = NULL, *keep = NULL;
	bool sojourn = false;
	const char *files[argc > 0 ? argc : 1];
	size_t n_files = 0;
	struct decode_options selection;
	decode_default_options(&selection);
	if (out_is_json())
		return cli_usage(cli, "-j: plot draws a PNG and prints nothing to read as JSON "
				      "(pktstats -j decode --summary gives the figures)");
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		int got = decode_parse_selection(cli, argc, argv, &i, &selection);
		if (got >= 0) {
			if (got != CLI_OK)
				return got;
		} else if (!strcmp(arg, "-o") || !strcmp(arg, "--title") || !strcmp(arg, "--data")) {
			if (i + 1 >= argc)
				return cli_usage(cli, "%s needs a value", arg);
			*(!strcmp(arg, "-o") ? &out : !strcmp(arg, "--title") ? &title : &keep) =
				argv[++i];
		} else if (!strcmp(arg, "--sojourn")) {
			sojourn = true;
		} else if (arg[0] == '-' && arg[1]) {
			return cli_usage(cli, "unknown option '%s'", arg);
		} else {
			files[n_files++] = arg;
		}
	}
	int checked = decode_check_options(cli, &selection);
	if (checked != CLI_OK)
		return checked;
	struct stat_reader_options options = selection.reader;
	const uint32_t queue_mask = selection.queues;
	if (n_files == 0)
		return cli_usage(cli, "no capture file given");
	for (size_t i = 0; i < n_files; i++)
		if (!strcmp(files[i], "-")) /* it would be read twice (the passes below) */
			return cli_usage(cli, "'-': plot reads its captures twice, so not from standard "
					 "input: save it to a file first");
	if (!out)
		return cli_usage(cli, "no output given (-o FILE.png)");

	/* Pass 1: span and largest occupancy, and every problem reported once. */
	char error[512] = "";
	struct stat_reader *reader;
	options.summary_only = true;
	options.sojourn = sojourn;
	int err = stat_reader_open(&reader, files, n_files, &options, error, sizeof error);
	if (err < 0)
		return cli_usage(cli, "%s", error);
	struct stat_record rec;
	int status = CLI_OK;
	uint64_t malformed = 0;
	struct sojourn_stats stats = {0};
	while ((err = stat_reader_next(reader, &rec)) != 0) {
		if (err < 0) {
			fprintf(stderr, "pktstats: plot: %s\n", stat_reader_error(reader));
			status = CLI_RUNTIME;
		} else if (rec.status == STAT_RECORD_MALFORMED) {
			malformed++;
		} else if (sojourn && sojourn_stats_add(&stats, rec.sojourns, rec.n_sojourns) < 0) {
			fprintf(stderr, "pktstats: plot: out of memory for the sojourn times\n");
			status = CLI_RUNTIME;
			break;
		}
	}
	const struct pktstats_summary summary = *stat_reader_summary(reader);
	struct pktstats_sojourn_counts untimed = {0};
	if (sojourn)
		pktstats_sojourn_total(stat_reader_sojourn(reader), queue_mask, &untimed);
	stat_reader_close(reader);
	if (status != CLI_OK) {
		sojourn_stats_free(&stats);
		return status; /* a file could not be read: said above */
	}
	if (summary.packets == 0) {
		fprintf(stderr, "pktstats: plot: no stat packets in %s%s\n", files[0],
			n_files > 1 ? " and the other files" : "");
		return CLI_RUNTIME;
	}
	if (malformed)
		fprintf(stderr, "pktstats: plot: %" PRIu64 " malformed stat packets left out "
				"(pktstats decode --summary lists them)\n", malformed);
	const struct plot_request request = {.files = files, .n_files = n_files, .options = &options,
					     .queue_mask = queue_mask, .summary = &summary, .out = out,
					     .title = title, .keep = keep};
	status = sojourn ? plot_sojourn(&request, &stats, &untimed) : plot_occupancy(&request);
	sojourn_stats_free(&stats);
	return status;
}

static const char plot_details[] =
	"Reads the stat packets of the captures (pcap or pcapng, in order, as one capture) and\n"
	"draws each queue's occupancy over time into a PNG through gnuplot: a line for the\n"
	"highest occupancy in each of 2000 time steps, a band down to the lowest, and crosses\n"
	"where packets were dropped. Time runs from the first stat packet, in us, ms or s;\n"
	"occupancy is in bytes or KiB.\n"
	"Options:\n"
	"  -o FILE.png        the picture (required)\n"
	SELECTION_OPTIONS
	"                     (every queue with stat data is drawn by default)\n"
	"  --title TEXT       the plot's title\n"
	"  --sojourn          the frames' queueing delay instead (docs/sojourn.md): above, its\n"
	"                     distribution per queue (the fraction of the queue's timed frames\n"
	"                     that waited at most so long); below, its lowest and highest in\n"
	"                     each of 2000 time steps, by departure. Frames that cannot be\n"
	"                     timed are counted on stderr\n"
	"  --data DIR         keep what gnuplot drew in DIR: queueQ.dat (time, lowest and\n"
	"                     highest occupancy per step, in the axes' units), dropsQ.dat (time,\n"
	"                     occupancy); with --sojourn cdfQ.dat (delay, fraction) and\n"
	"                     delayQ.dat (time, lowest and highest delay); plot.gp (the script),\n"
	"                     for plots of your own\n"
	"Example: pktstats plot stats.pcap -o queues.png --queues 3,5\n"
	"         pktstats plot --sojourn stats.pcap -o delay.png --queues 3\n";

static const struct cli_verb plot_verbs[] = {
	{"", "FILE... -o FILE.png [--sojourn] [--queues SET] [-f EXPR] [-p PORT] [--title TEXT] "
	 "[--data DIR]",
	 "Plot queue occupancy (or queueing delay) over time from the stat packets of captures",
	 plot_details,
	 plot_run},
	{NULL, NULL, NULL, NULL, NULL},
};

const struct cli_object cli_object_plot = {
	.name = "plot",
	.summary = "Queue occupancy or queueing delay over time, from captures, as a PNG (gnuplot)",
	.verbs = plot_verbs,
};
