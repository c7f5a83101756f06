/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output of the show commands, in one of two forms from the same calls:
 * "key: value" lines (nested objects indented under a "name:" line) for
 * people and grep, or JSON (-j) for programs.  Keys are the uapi's
 * field names, snake_case, identical in both forms.
 */
#ifndef DDSMCTL_OUT_H
#define DDSMCTL_OUT_H

#include <stdint.h>

void out_start(int json);
/* Ends the document (JSON's closing brace); 0, or -1 if stdout failed. */
int out_finish(void);

/* An object member @key (NULL inside an array, or at the top level). */
void out_object(const char *key, const char *label);
void out_object_end(void);
/* An array member @key; its elements are out_object(NULL, label). */
void out_array(const char *key);
void out_array_end(void);

void out_u64(const char *key, uint64_t v);
void out_str(const char *key, const char *s);
void out_bool(const char *key, int v);

#endif /* DDSMCTL_OUT_H */
