/* SPDX-License-Identifier: MIT */
#include "profile.h"
#include "builtin.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* inih reads through us, so that we know line numbers and comments. */
struct reader {
	const char *pos;
	int line;
	char pending[320]; /* comment lines seen since the last key */
	struct profile *p;
	const char *origin;
	struct mm_error *err;
	int failed;
};

static void append_note(char *dst, size_t cap, const char *text)
{
	size_t len = strlen(dst);

	if (len && len + 1 < cap)
		dst[len++] = ' ', dst[len] = 0;
	snprintf(dst + len, cap - len, "%s", text);
}

static char *reader_next(char *str, int num, void *stream)
{
	struct reader *r = stream;
	const char *s = r->pos, *eol;
	size_t n;

	if (!*s)
		return NULL;
	eol = strchr(s, '\n');
	n = eol ? (size_t)(eol - s + 1) : strlen(s);
	r->line++;
	{
		const char *c = s;

		while (*c == ' ' || *c == '\t')
			c++;
		if (*c == '#' || *c == ';') {
			/* a comment is provenance: keep it whole, and give inih an empty line */
			char text[320];
			size_t k = 0;

			c++;
			while (*c == ' ')
				c++;
			while (c < s + n && *c != '\n' && *c != '\r' && k + 1 < sizeof(text))
				text[k++] = *c++;
			text[k] = 0;
			append_note(r->pending, sizeof(r->pending), text);
			r->pos = s + n;
			strcpy(str, "\n");
			return str;
		}
		if (*c == '[')
			r->pending[0] = 0;
	}
	if (n >= (size_t)num) {
		/* inih reads lines of at most num - 1 bytes: refuse, rather than split, a longer one */
		if (!r->failed)
			mm_fail(r->err, MM_EPARSE, "%s:%d: line longer than %d characters (only comments may be)",
				r->origin, r->line, num - 2);
		r->failed = 1;
		return NULL;
	}
	memcpy(str, s, n);
	str[n] = 0;
	r->pos = s + n;
	return str;
}

static enum prof_tag tag_of(const char *note)
{
	static const struct {
		const char *word;
		enum prof_tag tag;
	} tags[] = {{"[measured]", PROF_MEASURED},
		    {"[vendor]", PROF_VENDOR},
		    {"[derived]", PROF_DERIVED},
		    {"[assumed]", PROF_ASSUMED},
		    {"[fitted]", PROF_FITTED}};

	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (strstr(note, tags[i].word))
			return tags[i].tag;
	return PROF_UNTAGGED;
}

const char *prof_tag_name(enum prof_tag t)
{
	static const char *const names[] = {"untagged", "measured", "vendor", "derived", "assumed", "fitted"};

	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
	struct reader *r = user;
	struct profile *p = r->p;
	struct prof_entry *e;
	char *end;

	if (r->failed)
		return 0; /* keep the first error */
	if (profile_find(p, section, name)) {
		mm_fail(r->err, MM_EPARSE, "%s:%d: key '%s' appears twice in [%s]", r->origin, r->line, name, section);
		r->failed = 1;
		return 0;
	}
	if (p->nentries == p->cap) {
		int cap = p->cap ? 2 * p->cap : 64;
		struct prof_entry *ne = realloc(p->e, cap * sizeof(*ne));

		if (!ne) {
			mm_fail(r->err, MM_ENOMEM, "%s: out of memory", r->origin);
			r->failed = 1;
			return 0;
		}
		p->e = ne;
		p->cap = cap;
	}
	e = &p->e[p->nentries++];
	memset(e, 0, sizeof(*e));
	snprintf(e->section, sizeof(e->section), "%s", section);
	snprintf(e->key, sizeof(e->key), "%s", name);
	snprintf(e->value, sizeof(e->value), "%s", value);
	errno = 0;
	e->num = strtod(value, &end);
	e->is_num = end != value && *end == 0 && errno == 0 && isfinite(e->num);
	e->line = r->line;
	snprintf(e->note, sizeof(e->note), "%s", r->pending);
	e->tag = tag_of(e->note);
	r->pending[0] = 0;
	return 1;
}

int profile_parse(struct profile *p, const char *origin, const char *text, struct mm_error *err)
{
	struct reader r = {.pos = text, .p = p, .origin = origin, .err = err};
	const char *slash = strrchr(origin, '/');
	const char *base = slash ? slash + 1 : origin;
	int rc;

	memset(p, 0, sizeof(*p));
	snprintf(p->path, sizeof(p->path), "%s", origin);
	{
		const char *dot = strrchr(base, '.');

		snprintf(p->name, sizeof(p->name), "%.*s", (int)(dot ? dot - base : (long)strlen(base)), base);
	}
	rc = ini_parse_stream(reader_next, &r, on_entry, &r);
	if (r.failed) {
		profile_free(p);
		return err ? err->code : MM_EPARSE;
	}
	if (rc != 0) {
		profile_free(p);
		return mm_fail(err, MM_EPARSE,
			       "%s:%d: malformed line (expected '[section]', 'key = value' or a '#' comment)", origin,
			       rc);
	}
	return 0;
}

static int read_file(const char *path, char **out, struct mm_error *err)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		return mm_fail(err, MM_ENOENT, "%s: cannot open: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return mm_fail(err, MM_EIO, "%s: cannot read", path);
	}
	if (len > (16L << 20)) {
		fclose(f);
		return mm_fail(err, MM_ERANGE, "%s: %ld bytes is too large for a profile or scenario", path, len);
	}
	buf = malloc(len + 1);
	if (!buf) {
		fclose(f);
		return mm_fail(err, MM_ENOMEM, "%s: out of memory", path);
	}
	if (fread(buf, 1, len, f) != (size_t)len) {
		free(buf);
		fclose(f);
		return mm_fail(err, MM_EIO, "%s: short read", path);
	}
	buf[len] = 0;
	fclose(f);
	if (strlen(buf) != (size_t)len) {
		free(buf);
		return mm_fail(err, MM_EPARSE, "%s: contains a NUL byte; expected a text file", path);
	}
	*out = buf;
	return 0;
}

int mm_read_text_file(const char *path, char **out, struct mm_error *err)
{
	return read_file(path, out, err);
}

static void list_builtins(const char *kind, char *buf, size_t cap)
{
	const char *const *names = profile_builtin_names(kind);

	buf[0] = 0;
	for (int i = 0; names[i]; i++)
		append_note(buf, cap, names[i]);
}

/* The builtin kernel profile whose [kernel] covers lists @version (one profile
 * stands for releases whose locks, layout and costs are the same). */
static const struct builtin_file *builtin_covering(const char *version)
{
	const char *const *names = profile_builtin_names("kernels");
	const struct builtin_file *found = NULL;

	for (int i = 0; names[i] && !found; i++) {
		struct profile p;
		struct mm_error err = {0};
		const struct prof_entry *e;

		if (profile_parse(&p, names[i], profile_builtin_text("kernels", names[i]), &err))
			continue;
		e = profile_find(&p, "kernel", "covers");
		if (e) {
			char buf[256], *save, *w;

			snprintf(buf, sizeof(buf), "%s", e->value);
			for (w = strtok_r(buf, " ,", &save); w && !found; w = strtok_r(NULL, " ,", &save))
				if (!strcmp(w, version))
					found = builtin_find("kernels", names[i]);
		}
		profile_free(&p);
	}
	return found;
}

/*
 * [kernel] base = PROFILE: a kernel profile that differs from another in a
 * few entries (a layout, a batch) names it and lists only those; every
 * entry of the base it does not set is taken over, provenance and all.
 */
static int inherit(struct profile *p, const char *kind, struct mm_error *err)
{
	static int depth;
	struct prof_entry *e = profile_find(p, "kernel", "base");
	struct profile base;
	int rc;

	if (!e || strcmp(kind, "kernels"))
		return 0;
	if (depth == 4) {
		rc = mm_fail(err, MM_EPARSE, "%s:%d: base profiles nested deeper than 4 (a loop?)", p->path, e->line);
		profile_free(p);
		return rc;
	}
	depth++;
	rc = profile_load(&base, kind, e->value, err);
	depth--;
	if (rc) {
		profile_free(p);
		return rc;
	}
	for (int i = 0; i < base.nentries && !rc; i++) {
		const struct prof_entry *b = &base.e[i];

		if (profile_find(p, b->section, b->key) || !strcmp(b->key, "covers"))
			continue;
		if (p->nentries == p->cap) {
			struct prof_entry *n = realloc(p->e, (size_t)(p->cap * 2 + 8) * sizeof(*n));

			if (!n) {
				rc = mm_fail(err, MM_ENOMEM, "out of memory");
				break;
			}
			p->e = n;
			p->cap = p->cap * 2 + 8;
		}
		p->e[p->nentries++] = *b;
	}
	profile_free(&base);
	if (rc)
		profile_free(p);
	return rc;
}

int profile_load(struct profile *p, const char *kind, const char *name_or_path, struct mm_error *err)
{
	const struct builtin_file *b = builtin_find(kind, name_or_path);
	char origin[600], *text = NULL;
	int rc;

	if (!b && !strcmp(kind, "kernels") && !strncmp(name_or_path, "linux-", 6))
		b = builtin_covering(name_or_path + 6);
	if (b) {
		snprintf(origin, sizeof(origin), "builtin:data/%s/%s.conf", kind, b->name);
		rc = profile_parse(p, origin, b->text, err);
		return rc ? rc : inherit(p, kind, err);
	}
	/* a name without '/' that is no file here is meant as a builtin */
	if (!strchr(name_or_path, '/') && access(name_or_path, F_OK)) {
		char names[512];

		list_builtins(kind, names, sizeof(names));
		return mm_fail(err, MM_ENOENT, "unknown %s profile '%s' (builtin: %s; or give a file path)",
			       strcmp(kind, "machines") ? "kernel" : "machine", name_or_path, names);
	}
	rc = read_file(name_or_path, &text, err);
	if (rc)
		return rc;
	rc = profile_parse(p, name_or_path, text, err);
	free(text);
	return rc ? rc : inherit(p, kind, err);
}

int profile_copy(struct profile *dst, const struct profile *src)
{
	*dst = *src;
	dst->e = malloc((src->cap ? src->cap : 1) * sizeof(*dst->e));
	if (!dst->e)
		return MM_ENOMEM;
	memcpy(dst->e, src->e, src->nentries * sizeof(*dst->e));
	return 0;
}

void profile_free(struct profile *p)
{
	free(p->e);
	memset(p, 0, sizeof(*p));
}

struct prof_entry *profile_find(const struct profile *p, const char *section, const char *key)
{
	for (int i = 0; i < p->nentries; i++)
		if (!strcmp(p->e[i].section, section) && !strcmp(p->e[i].key, key))
			return &p->e[i];
	return NULL;
}

const char *const *profile_builtin_names(const char *kind)
{
	/* Built once per kind from the embedded table; read-only afterwards. */
	static const char *names[3][64];
	static const char *const kinds[3] = {"machines", "kernels", "scenarios"};
	int k, n = 0;

	for (k = 0; k < 3 && strcmp(kinds[k], kind); k++)
		;
	if (k == 3)
		return names[0] + 63; /* an empty list */
#pragma omp critical(mmsim_builtin_names)
	if (!names[k][0]) {
		for (int i = 0; i < mmsim_builtin_nfiles && n < 63; i++)
			if (!strcmp(mmsim_builtin_files[i].kind, kind))
				names[k][n++] = mmsim_builtin_files[i].name;
	}
	return names[k];
}

const char *profile_builtin_text(const char *kind, const char *name)
{
	const struct builtin_file *b = builtin_find(kind, name);

	return b ? b->text : NULL;
}

/* ---- typed views -------------------------------------------------------- */

static int need(const struct profile *p, const char *sec, const char *key, struct prof_entry **out,
		struct mm_error *err)
{
	*out = profile_find(p, sec, key);
	if (!*out)
		return mm_fail(err, MM_EPARSE, "%s: missing key '%s' in section [%s]", p->path, key, sec);
	return 0;
}

static int need_num(const struct profile *p, const char *sec, const char *key, double lo, double hi, double *v,
		    struct mm_error *err)
{
	struct prof_entry *e;
	int rc = need(p, sec, key, &e, err);

	if (rc)
		return rc;
	if (!e->is_num)
		return mm_fail(err, MM_EPARSE, "%s:%d: [%s] %s = '%s': expected a number", p->path, e->line, sec, key,
			       e->value);
	if (e->num < lo || e->num > hi)
		return mm_fail(err, MM_ERANGE, "%s:%d: [%s] %s = %g is impossible (expected %g to %g)", p->path,
			       e->line, sec, key, e->num, lo, hi);
	*v = e->num;
	return 0;
}

static int need_str(const struct profile *p, const char *sec, const char *key, char *dst, size_t cap,
		    struct mm_error *err)
{
	struct prof_entry *e;
	int rc = need(p, sec, key, &e, err);

	if (rc)
		return rc;
	if ((size_t)snprintf(dst, cap, "%s", e->value) >= cap)
		return mm_fail(err, MM_ERANGE, "%s:%d: [%s] %s: '%s' is longer than %zu characters", p->path, e->line,
			       sec, key, e->value, cap - 1);
	return 0;
}

static int64_t ns_to_ps(double ns)
{
	return (int64_t)llround(ns * 1000.0);
}

/* Keys a hardware profile may hold, per section; anything else is a typo. */
static const char *const hw_keys[][12] = {
    {"machine", "name", "description", "topology", 0},
    {"latency", "self", "smt", "l3", "package", "remote", "memory_local", "memory_remote", "atomic", 0},
    {"coherence", "arbitration", "batch_limit", "home_snoop", 0},
    {"bandwidth", "node_gbs", "task_gbs", 0},
    {"cpu", "smt_factor", "pause_ns", "wakeup_ns", "jitter", "ipi_ns", "wake_step_ns", 0},
    {"cache", "llc_mib", 0},
};

static int check_hw_keys(const struct profile *p, struct mm_error *err)
{
	for (int i = 0; i < p->nentries; i++) {
		const struct prof_entry *e = &p->e[i];
		size_t s;
		int ok = 0;

		if (!strcmp(e->section, "frequency"))
			continue;
		for (s = 0; s < sizeof(hw_keys) / sizeof(hw_keys[0]); s++) {
			if (strcmp(hw_keys[s][0], e->section))
				continue;
			for (int k = 1; hw_keys[s][k]; k++)
				ok |= !strcmp(hw_keys[s][k], e->key);
			break;
		}
		if (s == sizeof(hw_keys) / sizeof(hw_keys[0]))
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: unknown section [%s] (expected machine, latency, coherence, bandwidth, "
				       "cache, frequency or cpu)",
				       p->path, e->line, e->section);
		if (!ok) {
			char list[256] = "";

			for (int k = 1; hw_keys[s][k]; k++)
				append_note(list, sizeof(list), hw_keys[s][k]);
			return mm_fail(err, MM_EPARSE, "%s:%d: unknown key '%s' in [%s] (expected one of: %s)", p->path,
				       e->line, e->key, e->section, list);
		}
	}
	return 0;
}

int hw_profile_derive(struct hw_profile *hw, const struct profile *p, struct mm_error *err)
{
	static const char *const lat_keys[TOPO_NDIST] = {"self", "smt", "l3", "package", "remote"};
	char arb[32];
	double v;
	int rc;

	memset(hw, 0, sizeof(*hw));
	if ((rc = check_hw_keys(p, err)))
		return rc;
	if ((rc = need_str(p, "machine", "name", hw->name, sizeof(hw->name), err)) ||
	    (rc = need_str(p, "machine", "description", hw->description, sizeof(hw->description), err)) ||
	    (rc = need_str(p, "machine", "topology", hw->topology, sizeof(hw->topology), err)))
		return rc;
	for (int d = 0; d < TOPO_NDIST; d++) {
		if ((rc = need_num(p, "latency", lat_keys[d], 0, 100000, &v, err)))
			return rc;
		hw->lat_ps[d] = ns_to_ps(v);
	}
	if ((rc = need_num(p, "latency", "memory_local", 0, 100000, &v, err)))
		return rc;
	hw->mem_local_ps = ns_to_ps(v);
	if ((rc = need_num(p, "latency", "memory_remote", 0, 100000, &v, err)))
		return rc;
	hw->mem_remote_ps = ns_to_ps(v);
	if ((rc = need_num(p, "latency", "atomic", 0, 10000, &v, err)))
		return rc;
	hw->atomic_ps = ns_to_ps(v);

	if ((rc = need_str(p, "coherence", "arbitration", arb, sizeof(arb), err)))
		return rc;
	if (!strcmp(arb, "fifo")) {
		hw->arbitration = ARB_FIFO;
	} else if (!strcmp(arb, "local-first")) {
		hw->arbitration = ARB_LOCAL_FIRST;
	} else {
		struct prof_entry *e = profile_find(p, "coherence", "arbitration");

		return mm_fail(err, MM_EPARSE, "%s:%d: arbitration = '%s': expected 'fifo' or 'local-first'", p->path,
			       e->line, arb);
	}
	if ((rc = need_num(p, "coherence", "batch_limit", 1, 1e6, &v, err)))
		return rc;
	if (v != floor(v))
		return mm_fail(err, MM_EPARSE, "%s:%d: [coherence] batch_limit = %g: expected a whole number", p->path,
			       profile_find(p, "coherence", "batch_limit")->line, v);
	hw->batch_limit = (int)v;
	if ((rc = need_num(p, "coherence", "home_snoop", 0, 1, &v, err)))
		return rc;
	if (v != 0 && v != 1)
		return mm_fail(err, MM_EPARSE, "%s:%d: [coherence] home_snoop = %g: expected 0 or 1", p->path,
			       profile_find(p, "coherence", "home_snoop")->line, v);
	hw->home_snoop = v != 0;
	if ((rc = need_num(p, "bandwidth", "node_gbs", 0.01, 1e5, &hw->bw_node_gbs, err)) ||
	    (rc = need_num(p, "bandwidth", "task_gbs", 0.01, 1e5, &hw->bw_task_gbs, err)))
		return rc;
	if ((rc = need_num(p, "cpu", "smt_factor", 1, 4, &hw->smt_factor, err)))
		return rc;
	if ((rc = need_num(p, "cpu", "pause_ns", 0, 1e5, &v, err)))
		return rc;
	hw->pause_ps = ns_to_ps(v);
	if ((rc = need_num(p, "cpu", "wakeup_ns", 0, 1e8, &v, err)))
		return rc;
	hw->wakeup_ps = ns_to_ps(v);
	if ((rc = need_num(p, "cpu", "jitter", 0, 0.5, &hw->jitter, err)))
		return rc;
	/* optional (profiles older than IPIs): 2 us, README "Profiles" */
	v = 2000;
	if (profile_find(p, "cpu", "ipi_ns") && (rc = need_num(p, "cpu", "ipi_ns", 0, 1e6, &v, err)))
		return rc;
	hw->ipi_ps = ns_to_ps(v);
	/* optional: each further task one wake_up_q() wakes costs the waker this (try_to_wake_up) */
	v = 300;
	if (profile_find(p, "cpu", "wake_step_ns") && (rc = need_num(p, "cpu", "wake_step_ns", 0, 1e6, &v, err)))
		return rc;
	hw->wake_step_ps = ns_to_ps(v);
	/* optional: without it, a scenario's 'miss' steps never go cold (README "Cold lines") */
	v = 0;
	if (profile_find(p, "cache", "llc_mib") && (rc = need_num(p, "cache", "llc_mib", 0.01, 1e6, &v, err)))
		return rc;
	hw->llc_bytes = v * 1048576.0;

	/* [frequency] ACTIVE_CORES = GHZ, in increasing order of cores */
	for (int i = 0; i < p->nentries; i++) {
		const struct prof_entry *e = &p->e[i];
		char *end;
		long cores;

		if (strcmp(e->section, "frequency"))
			continue;
		cores = strtol(e->key, &end, 10);
		if (*end || cores < 1)
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [frequency] key '%s': expected a number of active cores (1, 2, ...)",
				       p->path, e->line, e->key);
		if (!e->is_num || e->num < 0.1 || e->num > 10)
			return mm_fail(err, MM_ERANGE, "%s:%d: [frequency] %s = '%s': expected GHz from 0.1 to 10",
				       p->path, e->line, e->key, e->value);
		if (hw->nfreq == HW_MAX_FREQ)
			return mm_fail(err, MM_ERANGE, "%s:%d: more than %d [frequency] entries", p->path, e->line,
				       HW_MAX_FREQ);
		if (hw->nfreq && cores <= hw->freq_cores[hw->nfreq - 1])
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [frequency] entries must be in increasing order of active cores",
				       p->path, e->line);
		hw->freq_cores[hw->nfreq] = (int)cores;
		hw->freq_ghz[hw->nfreq++] = e->num;
	}
	if (!hw->nfreq)
		return mm_fail(err, MM_EPARSE, "%s: missing section [frequency] (ACTIVE_CORES = GHZ lines)", p->path);
	return 0;
}

double hw_freq_ghz(const struct hw_profile *hw, int active_cores)
{
	/* The first entry whose core count covers @active_cores; the last one beyond. */
	for (int i = 0; i < hw->nfreq; i++)
		if (active_cores <= hw->freq_cores[i])
			return hw->freq_ghz[i];
	return hw->freq_ghz[hw->nfreq - 1];
}

int kernel_profile_derive(struct kernel_profile *k, const struct profile *p, struct mm_error *err)
{
	static const char *const spinlocks[] = {"qspinlock", "ticket", 0};
	static const char *const eras[] = {"3.x", "5.11", "6.x", 0};
	static const char *const vmalocks[] = {"none", "vma_lock", 0};
	struct {
		const char *key;
		char *dst;
		size_t cap;
		const char *const *allowed;
	} fields[] = {
	    {"name", k->name, sizeof(k->name), 0},
	    {"version", k->version, sizeof(k->version), 0},
	    {"spinlock", k->spinlock, sizeof(k->spinlock), spinlocks},
	    {"rwsem_era", k->rwsem_era, sizeof(k->rwsem_era), eras},
	    {"vma_lock", k->vma_lock, sizeof(k->vma_lock), vmalocks},
	};
	int rc;

	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if ((rc = need_str(p, "kernel", fields[i].key, fields[i].dst, fields[i].cap, err)))
			return rc;
		if (fields[i].allowed) {
			int ok = 0;
			char list[128] = "";

			for (int a = 0; fields[i].allowed[a]; a++) {
				ok |= !strcmp(fields[i].allowed[a], fields[i].dst);
				append_note(list, sizeof(list), fields[i].allowed[a]);
			}
			if (!ok)
				return mm_fail(err, MM_EPARSE, "%s:%d: [kernel] %s = '%s': expected one of: %s",
					       p->path, profile_find(p, "kernel", fields[i].key)->line, fields[i].key,
					       fields[i].dst, list);
		}
	}
	snprintf(k->rwsem, sizeof(k->rwsem), "rwsem");
	for (int i = 0; i < p->nentries; i++) {
		const struct prof_entry *e = &p->e[i];
		int known = 0;

		if (!strcmp(e->section, "kernel")) {
			known = !strcmp(e->key, "covers") || !strcmp(e->key, "base");
			for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
				known |= !strcmp(fields[f].key, e->key);
			if (!known)
				return mm_fail(err, MM_EPARSE,
					       "%s:%d: unknown key '%s' in [kernel] (expected one of: name version "
					       "covers base spinlock rwsem_era vma_lock)",
					       p->path, e->line, e->key);
		}

		if (!strcmp(e->section, "costs") && (!e->is_num || e->num < 0 || e->num > 1e10))
			return mm_fail(err, MM_EPARSE, "%s:%d: [costs] %s = '%s': expected cycles, a number >= 0",
				       p->path, e->line, e->key, e->value);
		if (!strcmp(e->section, "batch") &&
		    (!e->is_num || e->num < 1 || e->num > 1e9 || e->num != floor(e->num)))
			return mm_fail(err, MM_EPARSE, "%s:%d: [batch] %s = '%s': expected a whole number >= 1",
				       p->path, e->line, e->key, e->value);
		if (!strcmp(e->section, "misses") && (!e->is_num || e->num < 0 || e->num > 1e6))
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: [misses] %s = '%s': expected DRAM accesses per visit, a number >= 0",
				       p->path, e->line, e->key, e->value);
		if (strcmp(e->section, "kernel") && strcmp(e->section, "costs") && strcmp(e->section, "batch") &&
		    strcmp(e->section, "layout") && strcmp(e->section, "misses"))
			return mm_fail(err, MM_EPARSE,
				       "%s:%d: unknown section [%s] (expected kernel, layout, batch, costs or misses)",
				       p->path, e->line, e->section);
	}
	k->p = p;
	return 0;
}

int kernel_cost_cycles(const struct kernel_profile *k, const char *name, double *cycles)
{
	const struct prof_entry *e = profile_find(k->p, "costs", name);

	if (!e)
		return MM_ENOENT;
	*cycles = e->num;
	return 0;
}

int kernel_misses(const struct kernel_profile *k, const char *name, double *n)
{
	const struct prof_entry *e = profile_find(k->p, "misses", name);

	if (!e)
		return MM_ENOENT;
	*n = e->num;
	return 0;
}

int kernel_batch(const struct kernel_profile *k, const char *name, int64_t *n)
{
	const struct prof_entry *e = profile_find(k->p, "batch", name);

	if (!e)
		return MM_ENOENT;
	*n = (int64_t)e->num;
	return 0;
}

const char *kernel_line_of(const struct kernel_profile *k, const char *field)
{
	const struct prof_entry *e = profile_find(k->p, "layout", field);

	return e ? e->value : field;
}
