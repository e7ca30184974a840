
let placeholder = 0
