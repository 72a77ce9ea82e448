"""mishgrad: an executable textbook about MishGrad, the gradient of Mish, on Ascend NPUs."""
