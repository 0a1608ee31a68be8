// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for make insn-profile: count, for every guest
 * instruction address, how many times the instruction ran, and write
 * "ADDRESS COUNT" lines (hex, decimal) to outfile=PATH when QEMU exits.
 *
 * Each translation block gets a counter (a scoreboard: one per vCPU) that
 * an inline add bumps on every entry; at exit each of its instructions is credited with the block's
 * count.  A block left early (an exception, an interrupt that QEMU takes
 * between its instructions) credits its later instructions once too many:
 * a few in millions, the same in both kernels of a comparison.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	struct qemu_plugin_scoreboard *count;	/* one u64 per vCPU */
	size_t n;
	uint64_t vaddr[];
};

static GPtrArray *blocks;
static GMutex lock;
static char *outfile;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b = g_malloc0(sizeof(*b) + n * sizeof(b->vaddr[0]));

	b->n = n;
	for (i = 0; i < n; i++)
		b->vaddr[i] = qemu_plugin_insn_vaddr(qemu_plugin_tb_get_insn(tb, i));
	g_mutex_lock(&lock);
	g_ptr_array_add(blocks, b);
	g_mutex_unlock(&lock);
	b->count = qemu_plugin_scoreboard_new(sizeof(uint64_t));
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
		QEMU_PLUGIN_INLINE_ADD_U64,
		qemu_plugin_scoreboard_u64(b->count), 1);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	GHashTable *per_insn = g_hash_table_new(g_int64_hash, g_int64_equal);
	GHashTableIter it;
	gpointer key, val;
	FILE *f;
	guint i;
	size_t j;

	for (i = 0; i < blocks->len; i++) {
		struct block *b = g_ptr_array_index(blocks, i);
		uint64_t count =
			qemu_plugin_u64_sum(qemu_plugin_scoreboard_u64(b->count));

		if (!count)
			continue;
		for (j = 0; j < b->n; j++) {
			uint64_t *sum = g_hash_table_lookup(per_insn, &b->vaddr[j]);

			if (!sum) {
				sum = g_new0(uint64_t, 1);
				g_hash_table_insert(per_insn, &b->vaddr[j], sum);
			}
			*sum += count;
		}
	}
	f = fopen(outfile, "w");
	if (!f) {
		perror(outfile);
		return;
	}
	g_hash_table_iter_init(&it, per_insn);
	while (g_hash_table_iter_next(&it, &key, &val))
		fprintf(f, "%" PRIx64 " %" PRIu64 "\n", *(uint64_t *)key,
			*(uint64_t *)val);
	fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "outfile=", 8))
			outfile = g_strdup(argv[i] + 8);
	if (!outfile) {
		fprintf(stderr, "insncount: needs outfile=PATH\n");
		return -1;
	}
	blocks = g_ptr_array_new();
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
