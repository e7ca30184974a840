import CGPIOD
let placeholder = 0
