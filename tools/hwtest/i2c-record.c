// SPDX-License-Identifier: GPL-2.0
/*
 * i2c-record: a virtual I2C adapter for `make hwtest` (tools/hwtest). It answers one address
 * (the OLED's, 0x3c) as a device that takes every write, answers other addresses as nothing
 * there (-ENXIO, as a real bus NAKs), and records each write message so that the test can
 * rebuild what an SSD1306 would hold in its GDDRAM from the commands and data luma sent.
 *
 * Plain I2C transfers (I2C_RDWR, which luma's managed interface uses) and SMBus through the
 * core's emulation: i2c-stub takes SMBus only and keeps no history, hence this module.
 *
 * debugfs, /sys/kernel/debug/i2c-record/:
 *   log      read: the records since the last read, consumed as read; each record is
 *            u64 CLOCK_MONOTONIC ns, u16 address, u16 length, then the message's bytes
 *            (little-endian). Records that do not fit are counted in "dropped".
 *   present  1: the device answers; 0: it is gone (every transfer fails with -ENXIO)
 *   writes   messages recorded since loading; dropped: messages that did not fit
 */
#include <linux/debugfs.h>
#include <linux/i2c.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#define LOG_SIZE (8 * 1024 * 1024)

static int nr = 1; /* i2c-1: the Pi's header bus */
module_param(nr, int, 0444);
MODULE_PARM_DESC(nr, "bus number (default 1)");
static unsigned short address = 0x3c;
module_param(address, ushort, 0444);
MODULE_PARM_DESC(address, "the one address that answers (default 0x3c)");

struct record_head {
	__le64 t_ns;
	__le16 addr;
	__le16 len;
} __packed;

static DEFINE_MUTEX(lock);
static u8 *log_buf;
static size_t log_len;
static bool present = true;
static u32 writes;
static u32 dropped;
static struct dentry *dir;

static void record(const struct i2c_msg *msg, u64 t_ns)
{
	struct record_head head = {
		.t_ns = cpu_to_le64(t_ns),
		.addr = cpu_to_le16(msg->addr),
		.len = cpu_to_le16(msg->len),
	};

	if (log_len + sizeof(head) + msg->len > LOG_SIZE) {
		dropped++;
		return;
	}
	memcpy(log_buf + log_len, &head, sizeof(head));
	memcpy(log_buf + log_len + sizeof(head), msg->buf, msg->len);
	log_len += sizeof(head) + msg->len;
	writes++;
}

static int record_xfer(struct i2c_adapter *adap, struct i2c_msg *msgs, int num)
{
	u64 now = ktime_get_ns();
	int i;

	mutex_lock(&lock);
	for (i = 0; i < num; i++) {
		if (msgs[i].addr != address || !READ_ONCE(present)) {
			mutex_unlock(&lock);
			return -ENXIO;
		}
	}
	for (i = 0; i < num; i++) {
		if (msgs[i].flags & I2C_M_RD)
			memset(msgs[i].buf, 0, msgs[i].len); /* the SSD1306 has nothing to read */
		else
			record(&msgs[i], now);
	}
	mutex_unlock(&lock);
	return num;
}

static u32 record_func(struct i2c_adapter *adap)
{
	return I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL;
}

static const struct i2c_algorithm record_algo = {
	.master_xfer = record_xfer,
	.functionality = record_func,
};

static struct i2c_adapter adapter = {
	.owner = THIS_MODULE,
	.class = I2C_CLASS_HWMON,
	.algo = &record_algo,
	.name = "i2c-record (hwtest)",
};

static ssize_t log_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	size_t n;

	mutex_lock(&lock);
	n = min(count, log_len);
	if (n && copy_to_user(ubuf, log_buf, n)) {
		mutex_unlock(&lock);
		return -EFAULT;
	}
	memmove(log_buf, log_buf + n, log_len - n);
	log_len -= n;
	mutex_unlock(&lock);
	return n;
}

static const struct file_operations log_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.read = log_read,
	.llseek = no_llseek,
};

static int __init record_init(void)
{
	int ret;

	log_buf = vmalloc(LOG_SIZE);
	if (!log_buf)
		return -ENOMEM;
	adapter.nr = nr;
	ret = i2c_add_numbered_adapter(&adapter);
	if (ret) {
		vfree(log_buf);
		return ret;
	}
	dir = debugfs_create_dir("i2c-record", NULL);
	debugfs_create_file("log", 0400, dir, NULL, &log_fops);
	debugfs_create_bool("present", 0600, dir, &present);
	debugfs_create_u32("writes", 0400, dir, &writes);
	debugfs_create_u32("dropped", 0400, dir, &dropped);
	return 0;
}

static void __exit record_exit(void)
{
	debugfs_remove_recursive(dir);
	i2c_del_adapter(&adapter);
	vfree(log_buf);
}

module_init(record_init);
module_exit(record_exit);
MODULE_DESCRIPTION("A virtual I2C adapter that records writes (Trap Companion's make hwtest)");
MODULE_LICENSE("GPL");
