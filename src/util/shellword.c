#include <stdlib.h>
#include <string.h>
#include "shellword.h"

static int is_safe(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=/.,:+%@", *s))
			return 0;
	return 1;
}

void shell_quote(FILE *f, const char *word)
{
	if (is_safe(word)) {
		fputs(word, f);
		return;
	}
	fputc('\'', f);
	for (const char *p = word; *p; p++)
		*p == '\'' ? fputs("'\\''", f) : fputc(*p, f);
	fputc('\'', f);
}

void shell_join(FILE *f, int argc, char *const *argv)
{
	for (int i = 0; i < argc; i++) {
		if (i)
			fputc(' ', f);
		shell_quote(f, argv[i]);
	}
}

void shell_words_free(int argc, char **argv)
{
	for (int i = 0; argv && i < argc; i++)
		free(argv[i]);
	free(argv);
}

static int add_word(int *argc, char ***argv, int *cap, char *w)
{
	if (*argc + 2 > *cap) {
		int nc = *cap ? *cap * 2 : 16;
		char **v = realloc(*argv, (size_t)nc * sizeof(*v));
		if (!v)
			return -1;
		*argv = v;
		*cap = nc;
	}
	(*argv)[(*argc)++] = w;
	(*argv)[*argc] = NULL;
	return 0;
}

int shell_split(const char *line, int *argc, char ***argv, char *err, size_t errlen)
{
	size_t n = strlen(line);
	char *buf = malloc(n + 1);
	int cap = 0;
	*argc = 0;
	*argv = NULL;
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t i = 0;
	while (i < n) {
		while (i < n && strchr(" \t\r\n", line[i]))
			i++;
		if (i >= n)
			break;
		size_t len = 0;
		while (i < n && !strchr(" \t\r\n", line[i])) {
			char c = line[i];
			if (c == '\'') {
				const char *q = strchr(line + i + 1, '\'');
				if (!q)
					goto open_quote;
				memcpy(buf + len, line + i + 1, (size_t)(q - line - i - 1));
				len += (size_t)(q - line - i - 1);
				i = (size_t)(q - line) + 1;
			} else if (c == '"') {
				for (i++; i < n && line[i] != '"'; i++) {
					if (strchr("$`", line[i]))
						goto construct;
					if (line[i] == '\\' && i + 1 < n && strchr("\"\\", line[i + 1]))
						i++;
					buf[len++] = line[i];
				}
				if (i >= n)
					goto open_quote;
				i++;
			} else if (c == '\\' && i + 1 < n) {
				buf[len++] = line[i + 1];
				i += 2;
			} else if (strchr("$`;|&<>()*?[#~", c) && !(c == '#' && len)) {
				goto construct;
			} else {
				buf[len++] = c;
				i++;
			}
		}
		char *w = malloc(len + 1);
		if (!w || add_word(argc, argv, &cap, w)) {
			free(w);
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		memcpy(w, buf, len);
		w[len] = 0;
	}
	free(buf);
	if (!*argc) {
		snprintf(err, errlen, "no words");
		return -1;
	}
	return 0;
open_quote:
	snprintf(err, errlen, "an unclosed quote");
	goto fail;
construct:
	snprintf(err, errlen, "'%c' at column %zu: a shell construct, not a plain command",
		 line[i], i + 1);
fail:
	free(buf);
	shell_words_free(*argc, *argv);
	*argc = 0;
	*argv = NULL;
	return -1;
}
