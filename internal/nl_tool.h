/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_tool.h — internal: what the tools that write reports (nl-detect, nl-peers, nl-flows)
 * must not take from the environment, listed once. Not part of the public API. */
#ifndef NLKIT_NL_TOOL_H
#define NLKIT_NL_TOOL_H

/* Remove from the process's environment what is meant for the programs a tool watches
 * (NL_DEST, NL_CFG, NL_SUMMARY, NL_SUMMARY_FILE), so that it can neither redirect, filter,
 * nor fold the tool's own report log, nor any log the tool opens later (alert receivers):
 * a tool's outputs are the URLs it is given. Call it before the first nl_open. */
void nl__tool_env_clear(void);

#endif
