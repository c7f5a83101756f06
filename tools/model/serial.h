/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Conflict-serializability of a small committed history, for the
 * transaction explorers (txexplore.c, txwire.c): each line keeps the
 * writer of every version; a committed read of version v gives the edges
 * writer(v) -> reader -> writer(v + 1), successive writers give ww edges,
 * and the history is serializable if the graph has no cycle.  Histories
 * hold at most SERIAL_MAXT transactions, so a cycle has length 2 or 3.
 */
#ifndef DDSM_MODEL_SERIAL_H
#define DDSM_MODEL_SERIAL_H

#define SERIAL_MAXT	3

struct serial {
	u8 edge[SERIAL_MAXT][SERIAL_MAXT];
	u32 n;			/* transactions */
};

/* Transaction @i read version @read_ver - 1 of a line (0: did not read). */
static inline void serial_read(struct serial *s, u32 i, const int8_t *writer,
			       u8 ver, u8 read_ver)
{
	u32 v = read_ver - 1u;
	int from, to;

	if (!read_ver)
		return;
	from = writer[v];
	to = v < ver ? writer[v + 1] : -1;
	if (from >= 0 && from != (int)i)
		s->edge[from][i] = 1;
	if (to >= 0 && to != (int)i)
		s->edge[i][to] = 1;
}

/* A line's successive writers, versions 1..@ver. */
static inline void serial_writes(struct serial *s, const int8_t *writer,
				 u8 ver)
{
	u32 v;

	for (v = 1; v < ver; v++)
		if (writer[v] != writer[v + 1])
			s->edge[(int)writer[v]][(int)writer[v + 1]] = 1;
}

static inline bool serial_cyclic(const struct serial *s)
{
	u32 a, b, c;

	for (a = 0; a < s->n; a++)
		for (b = 0; b < s->n; b++) {
			if (a == b || !s->edge[a][b])
				continue;
			if (s->edge[b][a])
				return true;
			for (c = 0; c < s->n; c++)
				if (c != a && c != b && s->edge[b][c] &&
				    s->edge[c][a])
					return true;
		}
	return false;
}

#endif
