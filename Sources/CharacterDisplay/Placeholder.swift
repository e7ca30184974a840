import LinuxI2C
let placeholder = 0
