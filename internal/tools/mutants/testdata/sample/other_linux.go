package sample

func perOS() int { return 1 }
