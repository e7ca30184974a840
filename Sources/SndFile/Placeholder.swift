import CSndFile
