#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <sys/ioctl.h>

// ioctl is variadic; Swift calls these typed forms instead.
static inline int segmance_i2c_set_address(int fd, long address) {
    return ioctl(fd, I2C_SLAVE, address);
}

static inline int segmance_smbus_send_byte(int fd, unsigned char byte) {
    struct i2c_smbus_ioctl_data args = { .read_write = I2C_SMBUS_WRITE, .command = byte,
                                         .size = I2C_SMBUS_BYTE, .data = 0 };
    return ioctl(fd, I2C_SMBUS, &args);
}
