// SPDX-License-Identifier: GPL-2.0
/*
 * ddsmctl's two output forms (ddsmctl_out.h).  JSON is written as it
 * goes, indented two blanks a level; each level remembers whether it has
 * had a member, for the commas.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ddsmctl_out.h"

#define MAX_DEPTH	8

static int json;
static int depth;		/* JSON nesting, or the human indentation */
static int members[MAX_DEPTH];	/* members written at each JSON level */

void out_start(int as_json)
{
	json = as_json;
	depth = 0;
	memset(members, 0, sizeof(members));
	if (json) {
		fputs("{", stdout);
		depth = 1;
	}
}

int out_finish(void)
{
	if (json)
		fputs("\n}\n", stdout);
	return fflush(stdout) ? -1 : 0;
}

/* JSON: a string literal, escaped as RFC 8259 asks. */
static void json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

/* JSON: the comma, the newline, the indentation and "key": if any. */
static void json_member(const char *key)
{
	if (depth < MAX_DEPTH && members[depth]++)
		putchar(',');
	printf("\n%*s", 2 * depth, "");
	if (key) {
		json_string(key);
		fputs(": ", stdout);
	}
}

static void human_key(const char *key)
{
	printf("%*s%s: ", 4 * depth, "", key);
}

void out_object(const char *key, const char *label)
{
	if (json) {
		json_member(key);
		putchar('{');
		if (++depth < MAX_DEPTH)
			members[depth] = 0;
		return;
	}
	printf("%*s%s:\n", 4 * depth, "", label ? label : key);
	depth++;
}

void out_object_end(void)
{
	depth--;
	if (json)
		printf("\n%*s}", 2 * depth, "");
}

void out_array(const char *key)
{
	if (json) {
		json_member(key);
		putchar('[');
		if (++depth < MAX_DEPTH)
			members[depth] = 0;
	}
}

void out_array_end(void)
{
	if (json) {
		depth--;
		printf("\n%*s]", 2 * depth, "");
	}
}

void out_u64(const char *key, uint64_t v)
{
	if (json) {
		json_member(key);
		printf("%" PRIu64, v);
	} else {
		human_key(key);
		printf("%" PRIu64 "\n", v);
	}
}

void out_str(const char *key, const char *s)
{
	if (json) {
		json_member(key);
		json_string(s);
	} else {
		human_key(key);
		printf("%s\n", s);
	}
}

void out_bool(const char *key, int v)
{
	if (json) {
		json_member(key);
		fputs(v ? "true" : "false", stdout);
	} else {
		human_key(key);
		printf("%s\n", v ? "yes" : "no");
	}
}
