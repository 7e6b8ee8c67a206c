/*
 * upstream_text.h — what the caller is told of an upstream's free text (error messages).
 *
 * An upstream's error messages are its own text and may quote any value it holds: a resolver or
 * a tool that names the record it failed on ("no credit record for ... with ssn 123-45-6789"), a
 * serialiser quoting the value it could not encode, a message in any encoding. The filter keeps
 * only words it knows are not data: the names the caller already knows (given by the caller of
 * the filter: a GraphQL schema's names, an MCP server's tool and argument names), a fixed
 * vocabulary of the words error messages are made of, numbers of at most two digits standing
 * alone (not beside another number or a hidden word: a value spelled in pieces), and
 * punctuation; every other word becomes "…".
 *
 * Owns: the word filter and its vocabulary. Does not own: which names are known (graphql_errors.c,
 * mcp_client.c) or where the text comes from.
 */
#ifndef SLUICE_EXEC_UPSTREAM_TEXT_H
#define SLUICE_EXEC_UPSTREAM_TEXT_H

#include "core/buf.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether word (len bytes, not NUL-terminated) is a name the caller already knows. */
typedef bool (*sluice_upstream_known_fn)(const void *ctx, const char *word, size_t len);

/* Appends text to b filtered word by word (known may be NULL: the vocabulary only); stops once b
 * holds more than max_bytes (sluice_upstream_text_cut then cuts it). */
void sluice_upstream_text_filter(sluice_buf *b,
                                 const char *text,
                                 sluice_upstream_known_fn known,
                                 const void *ctx,
                                 size_t max_bytes);

/* b's text, cut to max_bytes at a character boundary and ended with "…" when longer; NULL when
 * out of memory. */
const char *sluice_upstream_text_cut(sluice_buf *b, size_t max_bytes);

#endif
