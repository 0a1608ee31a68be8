// SPDX-License-Identifier: GPL-2.0
/*
 * A module that behaves like one with a slab cache of its own, for the
 * cache-churn step of make test (guest/field/cache_churn.sh): its init
 * creates the cache "sv_churn" (a constructor keeps SLUB from merging it
 * with another), fills MIB MiB of its slabs and frees them; its exit
 * destroys the cache.  Under SLAB_VIRTUAL every load after the first must
 * get the slots of the cache that the last unload destroyed, or each one
 * carves new address space and the region's metadata grows for good.
 */
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#define SV_CHURN_SIZE	1024

static unsigned int mib = 32;
module_param(mib, uint, 0444);
MODULE_PARM_DESC(mib, "MiB of objects allocated and freed at load");

static struct kmem_cache *sv_churn_cache;

static void sv_churn_ctor(void *p)
{
}

static int __init sv_churn_init(void)
{
	unsigned long i, n = ((unsigned long)mib << 20) / SV_CHURN_SIZE;
	void **objs;

	sv_churn_cache = kmem_cache_create("sv_churn", SV_CHURN_SIZE, 0, 0,
					   sv_churn_ctor);
	if (!sv_churn_cache)
		return -ENOMEM;
	objs = vmalloc(array_size(n, sizeof(*objs)));
	if (!objs) {
		kmem_cache_destroy(sv_churn_cache);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		objs[i] = kmem_cache_alloc(sv_churn_cache, GFP_KERNEL);
		if (!objs[i])
			break;
	}
	while (i--)
		kmem_cache_free(sv_churn_cache, objs[i]);
	vfree(objs);
	return 0;
}

static void __exit sv_churn_exit(void)
{
	kmem_cache_destroy(sv_churn_cache);
}

module_init(sv_churn_init);
module_exit(sv_churn_exit);
MODULE_DESCRIPTION("A slab cache created, filled, emptied and destroyed");
MODULE_LICENSE("GPL");
