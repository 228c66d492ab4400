/* SPDX-License-Identifier: BSD-3-Clause */
/* nl_tool.c — the environment the tools leave to the programs they watch (nl_tool.h). */
#include "nl_tool.h"

#include <stdlib.h>

void nl__tool_env_clear(void)
{
    static const char *const watched[] = {"NL_DEST", "NL_CFG", "NL_SUMMARY", "NL_SUMMARY_FILE"};
    for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++) unsetenv(watched[i]);
}
