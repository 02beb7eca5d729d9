/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exported by ib_core, declared only in its private core_priv.h: whether
 * QKEYs with the high bit set are open to all (rdma system set
 * privileged-qkey). Used only where kmod/compat/probe proved that the
 * kernel exports it with this very type (the symbol's CRC).
 */
bool rdma_nl_get_privileged_qkey(void);
