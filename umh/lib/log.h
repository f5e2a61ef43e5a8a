/* SPDX-License-Identifier: GPL-2.0 */
/* The helper's messages go to the kernel log (/dev/kmsg), i.e. dmesg. */
#ifndef UMH_LOG_H
#define UMH_LOG_H

void log_open(void);
void log_close(void);
void umh_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define LOG_ERR_LVL	3
#define LOG_WARN_LVL	4
#define LOG_NOTICE_LVL	5
#define LOG_INFO_LVL	6
#define LOG_DEBUG_LVL	7

#define log_err(...)	umh_log(LOG_ERR_LVL, __VA_ARGS__)
#define log_warn(...)	umh_log(LOG_WARN_LVL, __VA_ARGS__)
#define log_notice(...)	umh_log(LOG_NOTICE_LVL, __VA_ARGS__)
#define log_info(...)	umh_log(LOG_INFO_LVL, __VA_ARGS__)

#endif
